// dist/code-cache.cjs: Node's compile cache for the hook bundles, required by dist/hook.cjs on Node 22.1+.
export { enableCodeCache } from '../hook-runner/code-cache.js';
