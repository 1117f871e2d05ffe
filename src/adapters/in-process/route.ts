/** The in-process adapters' door to the shared dispatch path (policy + prices cached per process, decide, spool). */
export { routeDispatch } from '../../runtime/dispatch.js';
