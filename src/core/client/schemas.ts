import { z } from 'zod'

/** Endpoint 1's body, and (not shown by the spec, assumed alike) endpoint 2's. */
export const TokenResponse = z.object({
  token_type: z.string().optional(),
  access_token: z.string().min(1),
  expires_in: z.coerce.number().int().positive().optional(),
  refresh_token: z.string().min(1).optional(),
  scope: z.string().optional()
})
export type TokenResponse = z.infer<typeof TokenResponse>

/** OAuth-style error body: { error: "invalid_grant", error_description?: "..." }. */
export const OAuthError = z.object({ error: z.string(), error_description: z.string().optional() })

const AbpValidationError = z.object({
  message: z.string().nullish(),
  members: z.array(z.string()).nullish()
})

/** ABP's error object, found as `error` at the top level or inside the {result, success} wrapper. */
export const AbpError = z.object({
  code: z.union([z.string(), z.number()]).nullish(),
  message: z.string().nullish(),
  details: z.string().nullish(),
  validationErrors: z.array(AbpValidationError).nullish()
})
export const AbpErrorBody = z.object({ error: AbpError })

/** ASP.NET Core's ProblemDetails with per-field errors. */
export const ProblemDetails = z.object({
  title: z.string().nullish(),
  detail: z.string().nullish(),
  errors: z.record(z.string(), z.union([z.array(z.string()), z.string()])).nullish()
})

export const WireAnalysisItem = z.object({
  key: z.union([z.string(), z.number()]).transform(String),
  friendlyName: z.union([z.string(), z.number()]).nullish(),
  value: z.union([z.string(), z.number(), z.boolean()]).nullish()
})
