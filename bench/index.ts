console.log('Benchmarks land with their issues.')
