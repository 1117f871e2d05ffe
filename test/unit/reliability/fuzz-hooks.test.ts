// A quick share of the hook-runner fuzz in the default suite; test/stress/fuzz-hooks.test.ts runs >= 10,000 cases.
import { fuzzSuite } from '../../support/fuzz-suite.js';

fuzzSuite(1_100);
