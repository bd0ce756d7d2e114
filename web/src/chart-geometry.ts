/** The geometry of the page's charts (components/fields/Chart.tsx): scales, ticks, bars, points and pie slices, as plain numbers. */

/** Up to about `count` round ticks covering [min, max], the range they span (a range too small for round steps: its two ends). */
export function niceTicks(min: number, max: number, count = 4): { ticks: number[]; low: number; high: number } {
  if (!(max - min > Math.max(Math.abs(min), Math.abs(max)) * 1e-9)) {
    // One value (or values too close to tell apart): from it to 0.
    const value = Math.abs(max) > Math.abs(min) ? max : min;
    if (value === 0 || !Number.isFinite(value)) return { ticks: [0, 1], low: 0, high: 1 };
    [min, max] = value > 0 ? [0, value] : [value, 0];
  }
  const raw = (max - min) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  if (!Number.isFinite(raw) || !(power > 0) || !Number.isFinite(power)) return { ticks: [min, max], low: min, high: max };
  const step = ([1, 2, 2.5, 5, 10].find((m) => m * power >= raw) ?? 10) * power;
  // A value too small to divide by the step (a denormal) rounds to 0: one step more covers it.
  let low = Math.floor(min / step) * step;
  let high = Math.ceil(max / step) * step;
  if (low > min) low -= step;
  if (high < max) high += step;
  const ticks: number[] = [];
  for (let t = low; t <= high + step / 2 && ticks.length <= 2 * count + 2; t += step) ticks.push(Number(t.toPrecision(12)));
  return { ticks, low, high };
}

/** The value range of every series (0 included, so bars stand on the axis). */
export function valueRange(series: readonly { values: readonly (number | null)[] }[]): { min: number; max: number } {
  const all = series.flatMap((s) => s.values.filter((v): v is number => v !== null));
  return { min: Math.min(0, ...all), max: Math.max(0, ...all) };
}

export interface Slice {
  index: number;
  value: number;
  share: number;
  /** An SVG path of the slice (a whole circle when it is the only one). */
  path: string;
  whole: boolean;
}

/** Pie slices of the positive values, clockwise from the top. */
export function pieSlices(values: readonly (number | null)[], cx: number, cy: number, r: number): Slice[] {
  const parts = values.map((value, index) => ({ index, value: value ?? 0 })).filter((p) => p.value > 0);
  const total = parts.reduce((sum, p) => sum + p.value, 0);
  let angle = -Math.PI / 2;
  return parts.map((p) => {
    const share = p.value / total;
    const start = angle;
    angle += share * 2 * Math.PI;
    const point = (a: number) => `${(cx + r * Math.cos(a)).toFixed(2)} ${(cy + r * Math.sin(a)).toFixed(2)}`;
    const large = share > 0.5 ? 1 : 0;
    return {
      index: p.index,
      value: p.value,
      share,
      whole: parts.length === 1,
      path: `M ${cx} ${cy} L ${point(start)} A ${r} ${r} 0 ${large} 1 ${point(angle)} Z`,
    };
  });
}

/** A label shortened to `max` characters for an axis (the full text stays in the chart's table). */
export const shortLabel = (text: string, max = 12): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
