/**
 * `/v1/models` of the reference model: one entry per model id (`reference` and
 * `reference:<profile>`), in the shape H's Models API lists (context_length, max_output_length,
 * supported_features, pricing as USD-per-token decimal strings). The reference model is priced
 * like Holo3.1 (0.25 / 1.80 USD per million tokens) so that cost columns have real arithmetic.
 */
import { PROFILE_DESCRIPTIONS, REFERENCE_MODEL, referenceModelIds } from "./profiles.js";

export const REFERENCE_CONTEXT_LENGTH = 65_536;
export const REFERENCE_MAX_OUTPUT = 4_096;
export const REFERENCE_PRICING = { prompt: "0.00000025", completion: "0.0000018" } as const;

const CREATED = 1_767_225_600; // 2026-01-01, fixed so listings are stable

export function modelEntry(id: string): Record<string, unknown> {
  const profile = id === REFERENCE_MODEL ? null : id.slice(REFERENCE_MODEL.length + 1);
  return {
    id,
    object: "model",
    created: CREATED,
    owned_by: "umpire",
    description: profile
      ? `umpire reference model, profile ${profile}: ${PROFILE_DESCRIPTIONS[profile as keyof typeof PROFILE_DESCRIPTIONS]}`
      : "umpire reference model (server default profile)",
    context_length: REFERENCE_CONTEXT_LENGTH,
    max_output_length: REFERENCE_MAX_OUTPUT,
    supported_features: ["reasoning", "tools", "structured_outputs"],
    pricing: { ...REFERENCE_PRICING },
    deprecation_date: null,
    is_active: true,
  };
}

export function modelList(): { object: "list"; data: Record<string, unknown>[] } {
  return { object: "list", data: referenceModelIds().map(modelEntry) };
}
