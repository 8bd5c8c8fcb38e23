/** Per-tenant IP allow lists: single addresses and CIDR ranges, IPv4 and IPv6 (node:net BlockList). */
import { BlockList, isIP } from 'node:net'

export type AllowCheck = (ip: string) => boolean

/** Throws on an entry that is neither an address nor a CIDR range. null = unrestricted. */
export function compileAllowList(entries: readonly string[] | null): AllowCheck | null {
  if (entries === null) return null
  const list = new BlockList()
  for (const raw of entries) {
    const entry = raw.trim()
    const [address = '', prefixText] = entry.split('/')
    const family = isIP(address)
    if (family === 0) throw new Error(`Not an IP address or CIDR range: "${entry}"`)
    const type = family === 4 ? 'ipv4' : 'ipv6'
    if (prefixText === undefined) {
      list.addAddress(address, type)
      continue
    }
    const prefix = Number(prefixText)
    if (!/^\d+$/.test(prefixText) || prefix > (family === 4 ? 32 : 128)) throw new Error(`Bad CIDR prefix in "${entry}"`)
    list.addSubnet(address, prefix, type)
  }
  return (ip: string) => {
    // Dual-stack sockets report IPv4 peers as ::ffff:a.b.c.d; compare them as IPv4.
    const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1]
    if (v4) return list.check(v4, 'ipv4')
    const family = isIP(ip)
    return family !== 0 && list.check(ip, family === 4 ? 'ipv4' : 'ipv6')
  }
}
