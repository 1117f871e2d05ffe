// A quick share of the project-file property in the default suite; test/stress/project-property.test.ts runs 10,000.
import { projectPropertySuite } from '../../support/policy-property.js';

projectPropertySuite(1_000);
