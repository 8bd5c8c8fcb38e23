console.log('The CLI lands with the sync issue.')
