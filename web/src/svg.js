// SVG export of the current view: the same shapes and colors as the canvas.
import { FONT, SUB_FONT, EDGE_FONT, nodeColors, shapePoints, curvePath, heatColor, textWidth } from './render.js';

const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
const r1 = (v) => Math.round(v * 10) / 10;
const fontAttrs = (font) => {
  const m = /^(?:(\d+)\s+)?(\d+)px\s+(.*)$/.exec(font);
  return `font-size="${m[2]}"${m[1] ? ` font-weight="${m[1]}"` : ''} font-family="${esc(m[3])}"`;
};

/** view: {x, y, w, h} world rectangle, width/height: output size in px. */
export function sceneToSvg(scene, colors, view) {
  const { x, y, w, h } = view;
  const inView = (x0, y0, x1, y1) => x1 >= x && x0 <= x + w && y1 >= y && y0 <= y + h;
  const out = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${Math.round(view.width)}" height="${Math.round(view.height)}" viewBox="${r1(x)} ${r1(y)} ${r1(w)} ${r1(h)}">`);
  out.push(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="${colors.edge}"/></marker></defs>`);
  out.push(`<rect x="${r1(x)}" y="${r1(y)}" width="${r1(w)}" height="${r1(h)}" fill="${colors.bg}"/>`);
  for (const b of scene.boxes) {
    const x0 = b.x - b.w / 2;
    const y0 = b.y - b.h / 2;
    if (!inView(x0, y0, x0 + b.w, y0 + b.h)) continue;
    out.push(`<g class="box" data-id="${esc(b.id)}"><rect x="${r1(x0)}" y="${r1(y0)}" width="${r1(b.w)}" height="${r1(b.h)}" rx="10" fill="${colors.boxFill[b.depth % 2]}" stroke="${colors.boxStroke}"/>` +
      `<text x="${r1(x0 + 10)}" y="${r1(y0 + 18)}" ${fontAttrs(FONT)} fill="${colors.boxText}">\u2212  ${esc(b.label)}</text></g>`);
  }
  for (const e of scene.edges) {
    if (!inView(...e.bb)) continue;
    out.push(`<path d="${curvePath(e.points)}" fill="none" stroke="${colors.edge}" stroke-width="1.2"${e.dashed ? ' stroke-dasharray="5 4"' : ''} marker-end="url(#arrow)"/>`);
    if (e.lx !== undefined && e.label) {
      const tw = textWidth(e.label, EDGE_FONT) + 6;
      out.push(`<rect x="${r1(e.lx - tw / 2)}" y="${r1(e.ly - 7)}" width="${r1(tw)}" height="14" fill="${colors.edgeLabelBg}"/><text x="${r1(e.lx)}" y="${r1(e.ly + 3.5)}" text-anchor="middle" ${fontAttrs(EDGE_FONT)} fill="${colors.edgeLabel}">${esc(e.label)}</text>`);
    }
  }
  for (const n of scene.nodes) {
    const x0 = n.x - n.w / 2;
    const y0 = n.y - n.h / 2;
    if (!inView(x0, y0, x0 + n.w, y0 + n.h)) continue;
    const [fill, stroke0] = nodeColors(n, colors, view.heat);
    const stroke = view.selected === n.id ? colors.accent : view.matches?.has(n.id) ? colors.match : stroke0;
    const sw = view.selected === n.id ? 3 : view.matches?.has(n.id) ? 2.5 : 1.2;
    const pts = shapePoints(n);
    const shape = pts
      ? `<polygon points="${pts.map(r1).join(' ')}" fill="${fill}" stroke="${stroke}" stroke-width="${sw}"/>`
      : `<rect x="${r1(x0)}" y="${r1(y0)}" width="${r1(n.w)}" height="${r1(n.h)}" rx="${n.kind === 'group' ? 8 : 5}" fill="${fill}" stroke="${stroke}" stroke-width="${sw}"/>`;
    const label = n.kind === 'group' ? '+  ' + n.label : n.label;
    let t = `<text x="${r1(n.x)}" y="${r1(n.sub ? n.y - 4 : n.y + 4)}" text-anchor="middle" ${fontAttrs(FONT)} fill="${colors.text}">${esc(label)}</text>`;
    if (n.sub) t += `<text x="${r1(n.x)}" y="${r1(n.y + 13)}" text-anchor="middle" ${fontAttrs(SUB_FONT)} fill="${colors.sub}">${esc(n.sub)}</text>`;
    const hv = view.heat?.get(n.id);
    if (hv?.text) t += `<text x="${r1(x0 + n.w)}" y="${r1(y0 - 3)}" text-anchor="end" ${fontAttrs(SUB_FONT)} fill="${heatColor(colors.heat, 1)}">${esc(hv.text)}</text>`;
    out.push(`<g class="node" data-id="${esc(n.id)}">${shape}${t}</g>`);
  }
  out.push('</svg>');
  return out.join('\n');
}
