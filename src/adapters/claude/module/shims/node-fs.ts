/**
 * `node:fs` for the hooks module bundle: files are read through `$.fs` in the module, never through these. Modules the
 * bundle shares with the Node side import them; calling one from the module is a bug and throws (the hook fails open).
 */
const unavailable = (name: string) => (): never => {
  throw new Error(`${name} is not available in the Claude Code hooks module runtime`);
};
export const readFileSync = unavailable('readFileSync');
export const statSync = unavailable('statSync');
export const fstatSync = unavailable('fstatSync');
export const openSync = unavailable('openSync');
export const readSync = unavailable('readSync');
export const closeSync = unavailable('closeSync');
