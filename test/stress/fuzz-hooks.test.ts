// The full in-process hook-runner fuzz: >= 10,000 malformed payloads over every event of every command harness.
import { fuzzSuite } from '../support/fuzz-suite.js';

fuzzSuite(10_200);
