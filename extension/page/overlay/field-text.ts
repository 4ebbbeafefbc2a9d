import type { Box } from './geometry';

/**
 * Where a field's typed text reaches, so a badge may sit inside the field's empty right end: its style read on layout
 * changes, and its text measured on a canvas. Nothing here writes to the page.
 */

/** What placing a badge needs to know of a field's style; read on layout changes. */
export interface FieldStyle {
  font: string;
  letterSpacing: string;
  align: 'left' | 'right' | 'center';
  borderLeft: number;
  borderRight: number;
  borderTop: number;
  borderBottom: number;
  paddingLeft: number;
  paddingRight: number;
}

export function readFieldStyle(field: Element): FieldStyle {
  const s = field.ownerDocument.defaultView!.getComputedStyle(field);
  const px = (v: string) => parseFloat(v) || 0;
  const rtl = s.direction === 'rtl';
  let align: FieldStyle['align'] = rtl ? 'right' : 'left';
  if (s.textAlign === 'center') align = 'center';
  else if (s.textAlign === 'right' || (s.textAlign === 'end' && !rtl) || (s.textAlign === 'start' && rtl)) {
    align = 'right';
  } else if (s.textAlign === 'left' || (s.textAlign === 'end' && rtl)) align = 'left';
  return {
    // The canvas reads the same shorthand the browser resolves for the field.
    font: `${s.fontStyle} ${s.fontVariant === 'small-caps' ? 'small-caps ' : ''}${s.fontWeight} ${s.fontSize} ${s.fontFamily}`,
    letterSpacing: s.letterSpacing === 'normal' ? '0px' : s.letterSpacing,
    align,
    borderLeft: px(s.borderLeftWidth),
    borderRight: px(s.borderRightWidth),
    borderTop: px(s.borderTopWidth),
    borderBottom: px(s.borderBottomWidth),
    paddingLeft: px(s.paddingLeft),
    paddingRight: px(s.paddingRight),
  };
}

type Measure = { measureText(text: string): { width: number }; font: string; letterSpacing?: string };
let measurer: Measure | null | undefined;

/** The width of `text` in `style`'s font, from a canvas (no DOM, no layout). */
export function textWidth(text: string, style: FieldStyle, doc: Document): number {
  if (measurer === undefined) {
    const canvas = typeof OffscreenCanvas === 'function' ? new OffscreenCanvas(1, 1) : doc.createElement('canvas');
    measurer = (canvas.getContext('2d') as unknown as Measure | null) ?? null;
  }
  if (!measurer) return text.length * (parseFloat(style.font.split(' ').find((p) => p.endsWith('px')) ?? '16') || 16);
  if (measurer.font !== style.font) measurer.font = style.font;
  if ('letterSpacing' in measurer && measurer.letterSpacing !== style.letterSpacing) {
    measurer.letterSpacing = style.letterSpacing;
  }
  return measurer.measureText(text).width;
}

/**
 * The extent of a field's typed text, in viewport x, and the box its content sits in (inside border and padding).
 * `width` is the text's width (`textWidth`), which the caller keeps while the value and font stay the same.
 */
export function fieldText(
  field: HTMLInputElement | HTMLTextAreaElement,
  rect: Box,
  style: FieldStyle,
  width: number,
): { text: { left: number; right: number }; inner: Box } {
  const inner: Box = {
    left: rect.left + style.borderLeft,
    right: rect.right - style.borderRight,
    top: rect.top + style.borderTop,
    bottom: rect.bottom - style.borderBottom,
  };
  const contentLeft = inner.left + style.paddingLeft;
  const contentRight = inner.right - style.paddingRight;
  width = Math.ceil(width);
  let left: number;
  if (width >= contentRight - contentLeft) left = contentLeft - field.scrollLeft;
  else if (style.align === 'right') left = contentRight - width;
  else if (style.align === 'center') left = (contentLeft + contentRight - width) / 2;
  else left = contentLeft;
  // Text wider than the box scrolls: it reaches the end of the box whatever the scroll position.
  const right = width >= contentRight - contentLeft ? Math.max(contentRight, left + width) : left + width;
  return { text: { left, right }, inner };
}
