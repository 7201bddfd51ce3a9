// The plan's JSON schema is defined with the plan types on the ground floor; this path keeps llm/ imports working.
export { PLAN_JSON_SCHEMA, PLAN_SCHEMA_NAME } from '../utils/plan.js';
