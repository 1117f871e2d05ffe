// The full property: >= 10,000 random project files, none turns an over-ceiling dispatch into an allow (issue 28).
import { projectPropertySuite } from '../support/policy-property.js';

projectPropertySuite(10_000);
