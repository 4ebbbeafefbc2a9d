import type { UsageData } from '../../../../shared/api/usage';
import { displayDate } from '../../../../ui/common/display-dates';
import { COUNT_KINDS, countWords, KIND_WORDS, usageBars, type ChartBox } from './usage-chart';

/** viewBox units; the SVG scales to the section's width, keeping its proportions (text stays undistorted). */
const BOX: ChartBox = { width: 720, height: 220, left: 44, right: 8, top: 12, bottom: 28 };
const BASELINE = BOX.height - BOX.bottom;

/**
 * The days as stacked SVG bars (answered, refused, rate-limited). Drawn with SVG attributes and classes only, never a
 * style attribute (the console's CSP). For assistive technology it is one image named by its totals; the figures
 * themselves are in the table beside it (UsageTables).
 */
export function UsageChart({ usage }: { usage: UsageData }) {
  const { bars, top } = usageBars(usage.days, BOX);
  const label =
    `Checks per day from ${displayDate(usage.from)} to ${displayDate(usage.to)}: ${countWords(usage.totals)}. ` +
    'Every day is listed in the table "Checks per day".';
  return (
    <figure className="usage-figure">
      <svg
        className="usage-chart"
        viewBox={`0 0 ${BOX.width} ${BOX.height}`}
        role="img"
        aria-labelledby="usage-chart-title"
      >
        <title id="usage-chart-title">{label}</title>
        <line className="usage-axis" x1={BOX.left} x2={BOX.width - BOX.right} y1={BASELINE} y2={BASELINE} />
        <line className="usage-grid" x1={BOX.left} x2={BOX.width - BOX.right} y1={BOX.top} y2={BOX.top} />
        <text className="usage-label" x={BOX.left - 6} y={BOX.top + 4} textAnchor="end">
          {top}
        </text>
        <text className="usage-label" x={BOX.left - 6} y={BASELINE + 4} textAnchor="end">
          0
        </text>
        {bars.map((bar) => (
          <g key={bar.day.date}>
            <title>{`${displayDate(bar.day.date)}: ${countWords(bar.day)}`}</title>
            {bar.segments.map((s) => (
              <rect key={s.kind} className={`usage-${s.kind}`} x={bar.x} y={s.y} width={bar.width} height={s.height} />
            ))}
          </g>
        ))}
        <text className="usage-label" x={BOX.left} y={BOX.height - 8} textAnchor="start">
          {displayDate(usage.from)}
        </text>
        <text className="usage-label" x={BOX.width - BOX.right} y={BOX.height - 8} textAnchor="end">
          {displayDate(usage.to)}
        </text>
      </svg>
      <figcaption>
        <ul className="usage-legend" aria-label="Colours of the chart">
          {COUNT_KINDS.map((kind) => (
            <li key={kind}>
              <span className={`usage-swatch usage-swatch-${kind}`} aria-hidden="true" />
              {KIND_WORDS[kind]}
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
}
