//! A small SVG writer: rectangles, text and lines, written as plain strings. Figures are inline
//! HTML in Markdown, so the output holds no blank line (a blank line would end the HTML block).

use std::fmt::Write;

/// Colours shared by every figure (the legend of each figure names what they mean).
pub(crate) const DATA: &str = "#dbeafe";
pub(crate) const PAD: &str = "#e5e7eb";
pub(crate) const HOLE: &str = "#fde68a";
pub(crate) const RESULT: &str = "#dcfce7";
pub(crate) const PLAIN: &str = "#ffffff";
/// Distinct outline colours for windows, slices and their results.
pub(crate) const PALETTE: &[&str] = &[
    "#dc2626", "#2563eb", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#be185d", "#4d7c0f",
];

pub(crate) fn palette(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

/// Escapes text for SVG/XML content and attributes.
pub(crate) fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[derive(Default)]
pub(crate) struct Svg {
    body: String,
    pub width: f64,
    pub height: f64,
}

impl Svg {
    fn grow(&mut self, x: f64, y: f64) {
        self.width = self.width.max(x);
        self.height = self.height.max(y);
    }

    #[allow(clippy::too_many_arguments)]
    pub fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str, stroke: &str, sw: f64) {
        let _ = write!(
            self.body,
            r#"<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="{fill}" stroke="{stroke}" stroke-width="{sw}"/>"#
        );
        self.grow(x + w + sw, y + h + sw);
    }

    pub fn text(&mut self, x: f64, y: f64, s: &str, size: f64, anchor: &str) {
        let _ = write!(
            self.body,
            r#"<text x="{x}" y="{y}" font-size="{size}" text-anchor="{anchor}" font-family="monospace">{}</text>"#,
            esc(s)
        );
        let w = s.chars().count() as f64 * size * 0.62;
        let right = match anchor {
            "middle" => x + w / 2.0,
            "end" => x,
            _ => x + w,
        };
        self.grow(right + 2.0, y + size * 0.4);
    }

    /// A grid of cells at (x, y); `fill(r, c)` colours each cell. Returns its (width, height).
    pub fn grid(
        &mut self,
        x: f64,
        y: f64,
        cells: &[Vec<String>],
        cw: f64,
        ch: f64,
        fill: &dyn Fn(usize, usize) -> &'static str,
    ) -> (f64, f64) {
        let cols = cells.iter().map(Vec::len).max().unwrap_or(0);
        for (r, row) in cells.iter().enumerate() {
            for (c, v) in row.iter().enumerate() {
                let (cx, cy) = (x + c as f64 * cw, y + r as f64 * ch);
                self.rect(cx, cy, cw, ch, fill(r, c), "#6b7280", 0.5);
                self.text(cx + cw / 2.0, cy + ch / 2.0 + 4.0, v, 11.0, "middle");
            }
        }
        (cols as f64 * cw, cells.len() as f64 * ch)
    }

    /// An outline around cells `r0..=r1`, `c0..=c1` of a grid at (x, y).
    #[allow(clippy::too_many_arguments)]
    pub fn outline(
        &mut self,
        x: f64,
        y: f64,
        cw: f64,
        ch: f64,
        (r0, c0): (usize, usize),
        (r1, c1): (usize, usize),
        colour: &str,
        inset: f64,
    ) {
        let _ = write!(
            self.body,
            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="{colour}" stroke-width="2"/>"#,
            x + c0 as f64 * cw + inset,
            y + r0 as f64 * ch + inset,
            (c1 + 1 - c0) as f64 * cw - 2.0 * inset,
            (r1 + 1 - r0) as f64 * ch - 2.0 * inset
        );
    }

    /// A straight line (`dash` is an SVG dash array, empty for a solid line).
    #[allow(clippy::too_many_arguments)]
    pub fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, colour: &str, sw: f64, dash: &str) {
        let dash = if dash.is_empty() {
            String::new()
        } else {
            format!(r#" stroke-dasharray="{dash}""#)
        };
        let _ = write!(
            self.body,
            r#"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="{colour}" stroke-width="{sw}"{dash}/>"#
        );
        self.grow(x1.max(x2), y1.max(y2));
    }

    /// A polyline through `points`, with a dot on each.
    pub fn polyline(&mut self, points: &[(f64, f64)], colour: &str) {
        let pts: Vec<String> = points
            .iter()
            .map(|(x, y)| format!("{x:.1},{y:.1}"))
            .collect();
        let _ = write!(
            self.body,
            r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="2"/>"#,
            pts.join(" ")
        );
        for &(x, y) in points {
            let _ = write!(
                self.body,
                r#"<circle cx="{x:.1}" cy="{y:.1}" r="3" fill="{colour}"/>"#
            );
            self.grow(x + 3.0, y + 3.0);
        }
    }

    /// A legend row of coloured swatches at (x, y); returns the height used.
    pub fn legend(&mut self, x: f64, y: f64, items: &[(&str, &str)]) -> f64 {
        let mut cx = x;
        for (colour, label) in items {
            self.rect(cx, y, 12.0, 12.0, colour, "#6b7280", 0.5);
            self.text(cx + 16.0, y + 10.0, label, 11.0, "start");
            cx += 16.0 + label.chars().count() as f64 * 11.0 * 0.62 + 14.0;
        }
        16.0
    }

    /// The finished `<svg>` element.
    pub fn finish(&self, title: &str) -> String {
        let (w, h) = (self.width + 4.0, self.height + 4.0);
        format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" class="xla-figure" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" aria-label="{t}"><title>{t}</title>{}</svg>"#,
            self.body,
            t = esc(title)
        )
    }
}
