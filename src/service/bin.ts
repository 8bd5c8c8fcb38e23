console.log('The reference service lands with its own issue.')
