#pragma once
// Fitting a tree drawing into a view so that it stays readable: the whole drawing when its rows
// stay at least `minRowPixels` apart, otherwise the full width with rows that far apart and
// vertical scrolling (a vertical-only stretch: wide views get wide trees, not a narrow column).
#include <QGraphicsView>
#include <QRectF>

namespace gpurec::ui {

struct FitReserve {
    double left = 0, top = 0; // pixels kept free for an overlay (a legend) at the left or the top
    double right = 0;         // pixels for labels drawn at screen size beyond the content's right edge
    double bottom = 0;        // pixels below the content (fitRect only)
};

// `content` holds the items drawn in scene units only (labels kept at screen size are reserved
// for with `reserve.right`). Sets the view's transform and scene rect and scrolls to the top; `rowUnits` is
// the distance between two leaf rows in scene units. With `maxRowPixels` > 0 a drawing that fits
// is stretched to the full width and, rows at most that far apart, the height (drawings whose
// two axes mean different things, such as a cladogram); otherwise it keeps its proportions.
void fitReadable(QGraphicsView& view, const QRectF& content, double rowUnits, double minRowPixels,
                 FitReserve reserve = {}, double maxRowPixels = 0);

// Shows `content` filling the viewport less `reserve` (one scale per axis, or the same for both when
// `uniform`), centred; the scene rect covers `all` as well, so the rest stays reachable by scrolling.
void fitRect(QGraphicsView& view, const QRectF& content, const QRectF& all, bool uniform,
             FitReserve reserve = {});

} // namespace gpurec::ui
