// dist/code-cache.cjs: writes the hook bundles' V8 code cache, required by dist/hook.cjs after the answer is out.
export { saveCodeCache } from '../hook-runner/code-cache.js';
