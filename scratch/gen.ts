import { scaleData } from '../bench/scale-data'
for (const n of [1_000_000, 5_000_000]) {
  const d = scaleData(n, (l) => console.log(new Date().toISOString(), l))
  console.log(new Date().toISOString(), 'done', d.file, JSON.stringify(d.ingest))
}
