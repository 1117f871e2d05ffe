/** `tiergate report --json`: the documented, validated row source (src/contracts/report.ts). */
import { ReportSchema, type Report } from '../contracts/report.js';

export function formatJson(report: Report): string {
  return `${JSON.stringify(ReportSchema.parse(report), null, 2)}\n`;
}
