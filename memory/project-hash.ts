// The project hash lives on the ground floor (utils/project-hash.ts); this path keeps older imports working.
export { getProjectHash } from '../utils/project-hash.js';
