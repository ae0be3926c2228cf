// Canvas renderer: draws only what intersects the viewport, drops text when zoomed
// far out (level of detail), so panning stays smooth on graphs of thousands of nodes.
// Also draws the same scene into an SVG string (svg.js) for export.

export const FONT = '600 12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
export const SUB_FONT = '11px ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace';
export const EDGE_FONT = '10px ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace';
export const SKEW = 9;

let measureCtx = null;
const widthCache = new Map();
/** Text width in px for one of the fonts above (cached). */
export function textWidth(text, font) {
  const key = font + '\u0000' + text;
  let w = widthCache.get(key);
  if (w === undefined) {
    measureCtx ??= (typeof OffscreenCanvas !== 'undefined' ? new OffscreenCanvas(1, 1) : document.createElement('canvas')).getContext('2d');
    measureCtx.font = font;
    w = measureCtx.measureText(text).width;
    widthCache.set(key, w);
  }
  return w;
}

/** Size of a visible node. */
export function nodeSize(n) {
  const lw = textWidth(n.label, FONT);
  const sw = n.sub ? textWidth(n.sub, SUB_FONT) : 0;
  const slanted = n.kind === 'input' || n.kind === 'weight' || n.kind === 'output';
  // widths rounded up to 16 px: blocks that differ only in a digit of a shape get
  // equal sizes, so the layout cache (layout.js) lays them out once
  const w = Math.max(lw, sw, 24) + 24 + (slanted ? 2 * SKEW : 0) + (n.kind === 'group' ? 20 : 0);
  return [Math.ceil(w / 16) * 16, n.sub ? 40 : 28];
}

export function themeColors(el = document.documentElement) {
  const cs = getComputedStyle(el);
  const v = (n) => cs.getPropertyValue(n).trim();
  const cats = ['compute', 'attention', 'norm', 'activation', 'pool', 'shape', 'elementwise'];
  const c = {
    bg: v('--canvas-bg'), text: v('--node-text'), sub: v('--node-sub'), edge: v('--edge'), edgeLabel: v('--edge-label'),
    edgeLabelBg: v('--canvas-bg'), accent: v('--accent'), match: v('--match'), boxFill: [v('--box-fill-0'), v('--box-fill-1')],
    boxStroke: v('--box-stroke'), boxText: v('--box-text'), io: v('--io-fill'), ioStroke: v('--io-stroke'),
    weight: v('--weight-fill'), weightStroke: v('--weight-stroke'), group: v('--group-fill'), groupStroke: v('--group-stroke'),
    heat: [v('--heat-0'), v('--heat-1'), v('--heat-2')], cat: {},
  };
  for (const k of cats) c.cat[k] = [v(`--cat-${k}`), v(`--cat-${k}-stroke`)];
  return c;
}

const hex = (s) => {
  const m = /^#?([0-9a-f]{6})$/i.exec(s.trim());
  const n = m ? parseInt(m[1], 16) : 0;
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
};
/** t in [0, 1] on a 3-stop ramp. */
export function heatColor(stops, t) {
  const [a, b] = t < 0.5 ? [hex(stops[0]), hex(stops[1])] : [hex(stops[1]), hex(stops[2])];
  const u = t < 0.5 ? t * 2 : (t - 0.5) * 2;
  const c = a.map((x, i) => Math.round(x + (b[i] - x) * u));
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}

export function nodeColors(n, colors, heat) {
  if (heat && heat.has(n.id)) return [heatColor(colors.heat, heat.get(n.id).t), colors.heat[2]];
  if (n.kind === 'input' || n.kind === 'output') return [colors.io, colors.ioStroke];
  if (n.kind === 'weight') return [colors.weight, colors.weightStroke];
  if (n.kind === 'group') return [colors.group, colors.groupStroke];
  return colors.cat[n.category] || colors.cat.elementwise;
}

/** Outline of a node shape as points (for canvas paths, SVG polygons and hit tests). */
export function shapePoints(n) {
  const x0 = n.x - n.w / 2;
  const x1 = n.x + n.w / 2;
  const y0 = n.y - n.h / 2;
  const y1 = n.y + n.h / 2;
  if (n.kind === 'input' || n.kind === 'weight') return [x0 + SKEW, y0, x1, y0, x1 - SKEW, y1, x0, y1];
  if (n.kind === 'output') return [x0, y0, x1, y0, x1 - SKEW, y1, x0 + SKEW, y1];
  return null; // rounded rectangle
}

export class GraphCanvas {
  constructor(canvas, handlers = {}) {
    this.canvas = canvas;
    this.ctx = canvas.getContext('2d');
    this.h = handlers;
    this.scene = null;
    this.scale = 1;
    this.tx = 0;
    this.ty = 0;
    this.selected = null;
    this.matches = new Set();
    this.heat = null;
    this.colors = null;
    this.frame = 0;
    this.drawCount = 0;
    this._bind();
    new ResizeObserver(() => this.resize()).observe(canvas.parentElement);
  }

  resize() {
    const r = this.canvas.parentElement.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    this.canvas.width = Math.max(1, Math.round(r.width * dpr));
    this.canvas.height = Math.max(1, Math.round(r.height * dpr));
    this.canvas.style.width = r.width + 'px';
    this.canvas.style.height = r.height + 'px';
    this.vw = r.width;
    this.vh = r.height;
    this.redraw();
  }

  setScene(scene, { keepView = false } = {}) {
    this.scene = scene;
    for (const e of scene.edges) {
      let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
      for (let i = 0; i < e.points.length; i += 2) {
        x0 = Math.min(x0, e.points[i]);
        x1 = Math.max(x1, e.points[i]);
        y0 = Math.min(y0, e.points[i + 1]);
        y1 = Math.max(y1, e.points[i + 1]);
      }
      e.bb = [x0, y0, x1, y1];
    }
    if (!keepView) this.fit({ readable: true });
    else this.redraw();
  }

  setTheme(colors) {
    this.colors = colors;
    this.redraw();
  }

  /** Whole graph in view; readable: if that would make text tiny, fit the width (at most 1:1) and start at the top. */
  fit({ readable = false } = {}) {
    if (!this.scene || !this.vw) return;
    const s = Math.min(this.vw / this.scene.width, this.vh / this.scene.height, 1.5);
    this.scale = readable && s < 0.45 ? Math.max(s, Math.min(1, this.vw / this.scene.width)) : s;
    this.tx = (this.vw - this.scene.width * this.scale) / 2;
    this.ty = this.scene.height * this.scale < this.vh ? (this.vh - this.scene.height * this.scale) / 2 : 0;
    this.redraw();
  }

  /** Centers item (node or box) `id`, zooming in if it would be tiny. */
  centerOn(id, minScale = 0.9) {
    const it = this.scene?.byId.get(id);
    if (!it) return;
    this.scale = Math.max(this.scale, minScale);
    this.tx = this.vw / 2 - it.x * this.scale;
    this.ty = this.vh / 2 - it.y * this.scale;
    this.redraw();
  }

  zoomBy(f, cx = this.vw / 2, cy = this.vh / 2) {
    const s = Math.min(4, Math.max(0.02, this.scale * f));
    this.tx = cx - ((cx - this.tx) * s) / this.scale;
    this.ty = cy - ((cy - this.ty) * s) / this.scale;
    this.scale = s;
    this.redraw();
  }

  toWorld(x, y) {
    return [(x - this.tx) / this.scale, (y - this.ty) / this.scale];
  }

  /** Screen position (CSS px, relative to the canvas) of an item's center. */
  screenPos(id) {
    const it = this.scene?.byId.get(id);
    if (!it) return null;
    return [it.x * this.scale + this.tx, it.y * this.scale + this.ty];
  }

  hit(x, y) {
    if (!this.scene) return null;
    const [wx, wy] = this.toWorld(x, y);
    const nodes = this.scene.nodes;
    for (let i = nodes.length - 1; i >= 0; --i) {
      const n = nodes[i];
      if (Math.abs(wx - n.x) <= n.w / 2 && Math.abs(wy - n.y) <= n.h / 2) return { type: 'node', item: n };
    }
    let best = null;
    for (const b of this.scene.boxes) {
      if (Math.abs(wx - b.x) <= b.w / 2 && Math.abs(wy - b.y) <= b.h / 2 && (!best || b.w * b.h < best.w * best.h)) best = b;
    }
    if (best) return { type: 'box', item: best, header: wy < best.y - best.h / 2 + 26 };
    return null;
  }

  _bind() {
    const c = this.canvas;
    let drag = null;
    c.addEventListener('pointerdown', (ev) => {
      drag = { x: ev.clientX, y: ev.clientY, tx: this.tx, ty: this.ty, moved: false };
      c.setPointerCapture(ev.pointerId);
    });
    c.addEventListener('pointermove', (ev) => {
      if (!drag) {
        const r = c.getBoundingClientRect();
        const h = this.hit(ev.clientX - r.left, ev.clientY - r.top);
        c.style.cursor = h ? 'pointer' : 'grab';
        return;
      }
      const dx = ev.clientX - drag.x;
      const dy = ev.clientY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
      if (drag.moved) {
        c.style.cursor = 'grabbing';
        this.tx = drag.tx + dx;
        this.ty = drag.ty + dy;
        this.redraw();
      }
    });
    c.addEventListener('pointerup', (ev) => {
      const d = drag;
      drag = null;
      if (!d || d.moved) return;
      const r = c.getBoundingClientRect();
      const h = this.hit(ev.clientX - r.left, ev.clientY - r.top);
      this.h.onClick?.(h, ev);
    });
    c.addEventListener('dblclick', (ev) => {
      const r = c.getBoundingClientRect();
      const h = this.hit(ev.clientX - r.left, ev.clientY - r.top);
      this.h.onDoubleClick?.(h, ev);
    });
    c.addEventListener(
      'wheel',
      (ev) => {
        ev.preventDefault();
        const r = c.getBoundingClientRect();
        if (!ev.shiftKey) {
          this.zoomBy(Math.exp(-ev.deltaY * 0.0015), ev.clientX - r.left, ev.clientY - r.top);
        } else {
          this.tx -= ev.deltaX;
          this.ty -= ev.deltaY;
          this.redraw();
        }
      },
      { passive: false },
    );
  }

  redraw() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.draw();
    });
  }

  draw() {
    const { ctx, scene, colors } = this;
    if (!colors) return;
    const dpr = window.devicePixelRatio || 1;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = colors.bg;
    ctx.fillRect(0, 0, this.canvas.width, this.canvas.height);
    if (!scene) return;
    this.drawCount++;
    const s = this.scale;
    ctx.setTransform(s * dpr, 0, 0, s * dpr, this.tx * dpr, this.ty * dpr);
    const [vx0, vy0] = this.toWorld(0, 0);
    const [vx1, vy1] = this.toWorld(this.vw, this.vh);
    const inView = (x0, y0, x1, y1) => x1 >= vx0 && x0 <= vx1 && y1 >= vy0 && y0 <= vy1;
    const text = s > 0.33;
    // boxes
    for (const b of scene.boxes) {
      const x0 = b.x - b.w / 2;
      const y0 = b.y - b.h / 2;
      if (!inView(x0, y0, x0 + b.w, y0 + b.h)) continue;
      roundRect(ctx, x0, y0, b.w, b.h, 10);
      ctx.fillStyle = colors.boxFill[b.depth % 2];
      ctx.fill();
      ctx.lineWidth = this.selected === b.id ? 2.5 : 1;
      ctx.strokeStyle = this.selected === b.id ? colors.accent : this.matches.has(b.id) ? colors.match : colors.boxStroke;
      ctx.stroke();
      if (this.heat?.has(b.id)) {
        ctx.fillStyle = heatColor(colors.heat, this.heat.get(b.id).t);
        ctx.fillRect(x0 + 1, y0 + 1, 5, b.h - 2);
      }
      if (s > 0.2) {
        ctx.fillStyle = colors.boxText;
        ctx.font = FONT;
        ctx.textBaseline = 'middle';
        ctx.textAlign = 'left';
        ctx.fillText('\u2212  ' + b.label, x0 + 10, y0 + 14);
        if (b.note) {
          ctx.font = SUB_FONT;
          ctx.fillStyle = colors.sub;
          ctx.textAlign = 'right';
          ctx.fillText(b.note, x0 + b.w - 10, y0 + 14);
        }
      }
    }
    // edges
    ctx.lineWidth = 1.2;
    ctx.strokeStyle = colors.edge;
    ctx.fillStyle = colors.edge;
    for (const e of scene.edges) {
      const [x0, y0, x1, y1] = e.bb;
      if (!inView(x0, y0, x1, y1)) continue;
      ctx.setLineDash(e.dashed ? [5, 4] : []);
      if (e.free) ctx.globalAlpha = 0.35; // broadcast edges (one source feeding many blocks)
      drawCurve(ctx, e.points);
      ctx.stroke();
      ctx.setLineDash([]);
      if (s > 0.25) arrowHead(ctx, e.points);
      ctx.globalAlpha = 1;
    }
    if (s > 0.55) {
      ctx.font = EDGE_FONT;
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      for (const e of scene.edges) {
        if (e.lx === undefined || !e.label || !inView(e.lx - 40, e.ly - 8, e.lx + 40, e.ly + 8)) continue;
        const w = textWidth(e.label, EDGE_FONT) + 6;
        ctx.fillStyle = colors.edgeLabelBg;
        ctx.fillRect(e.lx - w / 2, e.ly - 7, w, 14);
        ctx.fillStyle = colors.edgeLabel;
        ctx.fillText(e.label, e.lx, e.ly);
      }
    }
    // nodes
    for (const n of scene.nodes) {
      const x0 = n.x - n.w / 2;
      const y0 = n.y - n.h / 2;
      if (!inView(x0 - 40, y0 - 12, x0 + n.w + 40, y0 + n.h)) continue;
      const [fill, stroke] = nodeColors(n, colors, this.heat);
      const pts = shapePoints(n);
      if (pts) {
        ctx.beginPath();
        ctx.moveTo(pts[0], pts[1]);
        for (let i = 2; i < pts.length; i += 2) ctx.lineTo(pts[i], pts[i + 1]);
        ctx.closePath();
      } else roundRect(ctx, x0, y0, n.w, n.h, n.kind === 'group' ? 8 : 5);
      ctx.fillStyle = fill;
      ctx.fill();
      const sel = this.selected === n.id;
      const match = this.matches.has(n.id);
      ctx.lineWidth = sel ? 3 : match ? 2.5 : 1.2;
      ctx.strokeStyle = sel ? colors.accent : match ? colors.match : stroke;
      ctx.stroke();
      if (n.kind === 'group') {
        // stacked look: a collapsed block holds more
        ctx.lineWidth = 1;
        ctx.strokeStyle = stroke;
        roundRect(ctx, x0 + 4, y0 + 4, n.w - 8, n.h - 8, 6);
        ctx.stroke();
      }
      if (!text) continue;
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      const hot = this.heat?.get(n.id)?.t > 0.55; // dark heat fill: light text
      ctx.fillStyle = hot ? '#fff' : colors.text;
      ctx.font = FONT;
      const label = n.kind === 'group' ? '\u002b  ' + n.label : n.label;
      ctx.fillText(label, n.x, n.sub ? n.y - 8 : n.y);
      if (n.sub) {
        ctx.font = SUB_FONT;
        ctx.fillStyle = hot ? '#fff' : colors.sub;
        ctx.fillText(n.sub, n.x, n.y + 9);
      }
      const h = this.heat?.get(n.id);
      if (h && h.text) {
        ctx.font = SUB_FONT;
        const w = textWidth(h.text, SUB_FONT) + 8;
        roundRect(ctx, x0 + n.w - w + 8, y0 - 16, w, 15, 7);
        ctx.fillStyle = colors.heat[2];
        ctx.fill();
        ctx.fillStyle = '#fff';
        ctx.fillText(h.text, x0 + n.w - w / 2 + 8, y0 - 8.5);
      }
    }
  }
}

export function roundRect(ctx, x, y, w, h, r) {
  ctx.beginPath();
  ctx.moveTo(x + r, y);
  ctx.arcTo(x + w, y, x + w, y + h, r);
  ctx.arcTo(x + w, y + h, x, y + h, r);
  ctx.arcTo(x, y + h, x, y, r);
  ctx.arcTo(x, y, x + w, y, r);
  ctx.closePath();
}

// Polyline through the layout's points, corners rounded with quadratic curves.
function drawCurve(ctx, p) {
  ctx.beginPath();
  ctx.moveTo(p[0], p[1]);
  const n = p.length / 2;
  if (n === 2) {
    ctx.lineTo(p[2], p[3]);
    return;
  }
  for (let i = 1; i < n - 1; ++i) {
    const mx = (p[2 * i] + p[2 * i + 2]) / 2;
    const my = (p[2 * i + 1] + p[2 * i + 3]) / 2;
    ctx.quadraticCurveTo(p[2 * i], p[2 * i + 1], mx, my);
  }
  ctx.lineTo(p[p.length - 2], p[p.length - 1]);
}

/** SVG path data for the same curve. */
export function curvePath(p) {
  const f = (v) => Math.round(v * 10) / 10;
  let d = `M${f(p[0])},${f(p[1])}`;
  const n = p.length / 2;
  for (let i = 1; i < n - 1; ++i) {
    d += ` Q${f(p[2 * i])},${f(p[2 * i + 1])} ${f((p[2 * i] + p[2 * i + 2]) / 2)},${f((p[2 * i + 1] + p[2 * i + 3]) / 2)}`;
  }
  return d + ` L${f(p[p.length - 2])},${f(p[p.length - 1])}`;
}

function arrowHead(ctx, p) {
  const n = p.length;
  const x = p[n - 2];
  const y = p[n - 1];
  let dx = x - p[n - 4];
  let dy = y - p[n - 3];
  const len = Math.hypot(dx, dy) || 1;
  dx /= len;
  dy /= len;
  ctx.beginPath();
  ctx.moveTo(x, y);
  ctx.lineTo(x - dx * 7 - dy * 3.5, y - dy * 7 + dx * 3.5);
  ctx.lineTo(x - dx * 7 + dy * 3.5, y - dy * 7 - dx * 3.5);
  ctx.closePath();
  ctx.fill();
}
