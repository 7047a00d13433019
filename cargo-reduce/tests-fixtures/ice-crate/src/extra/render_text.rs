//! Renders a scene as text, one glyph per cell.

use crate::scene::Scene;

/// The scene drawn on a grid of characters, rows joined by newlines.
pub fn render(scene: &Scene) -> String {
    let Some(extent) = scene.extent() else {
        return String::new();
    };
    let (w, h) = (extent.size.w as usize, extent.size.h as usize);
    let mut grid = vec![vec![' '; w]; h];
    for (name, rect) in scene.layout() {
        let glyph = name.chars().next().unwrap_or('?');
        for y in 0..rect.size.h as usize {
            for x in 0..rect.size.w as usize {
                let (gx, gy) = (rect.origin.x as usize + x, rect.origin.y as usize + y);
                if gy < h && gx < w {
                    grid[gy][gx] = glyph;
                }
            }
        }
    }
    grid.into_iter()
        .map(|row| row.into_iter().collect::<String>().trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}
