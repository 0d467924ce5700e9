/**
 * Pack files are imported as text (`with { type: "text" }`) so that the compiled binary embeds
 * them (SPEC §6). Edge: read by `src/platform/packs.ts`.
 */
declare module "*.yaml" {
  const text: string;
  export default text;
}
