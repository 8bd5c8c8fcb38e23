/** Instants and zones: unambiguous across IPC, zones and the database. */
import { z } from 'zod'
import { IANAZone } from 'luxon'

/** A UTC instant in epoch milliseconds: unambiguous across IPC, zones and the database. */
export const EpochMs = z.number().int().min(0).max(8_640_000_000_000)
export type EpochMs = z.infer<typeof EpochMs>

export const IanaZone = z
  .string()
  .min(1)
  .refine((z) => IANAZone.isValidZone(z), { message: 'Not a known IANA time zone' })

/** The display zone may follow the operating system. */
export const DisplayZone = z.union([z.literal('system'), IanaZone])
