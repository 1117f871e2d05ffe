/** `node:os` for the hooks module bundle: the module reads HOME through `$.env.get`, so no home lookup is possible here. */
export function homedir(): string {
  return '';
}
