// The reconciliation drawing stays readable on a 100-species tree: marks and labels keep their
// screen size at any zoom, Fit fills the view's width with readable rows and follows resizes
// until the user zooms, transfer arcs carry arrowheads and aggregated arcs their frequencies.
#include "recon/recon_summary.hpp"
#include "support.hpp"
#include "views/reconciliation_view.hpp"

#include <QGraphicsItem>
#include <QGraphicsPathItem>
#include <QGraphicsScene>
#include <QImage>
#include <QScrollBar>
#include <QtTest>

using namespace gpurec;
using namespace gpurec::ui;

namespace {

// A reconciliation with one transfer between the first and the last leaf of the species tree.
Reconciliation transferBetweenExtremes(const SpeciesTree& species) {
    std::vector<int> leaves;
    for (int e = 0; e < species.size(); ++e)
        if (species.isLeaf(e)) leaves.push_back(e);
    Reconciliation r;
    r.family = "demo";
    int top = test::addNode(r, -1, {{EventType::Transfer, leaves.front(), leaves.back()}});
    test::addNode(r, top, {{EventType::Leaf, leaves.front()}}, "stays");
    test::addNode(r, top, {{EventType::Leaf, leaves.back()}}, "moves");
    r.originSpecies = leaves.front();
    return r;
}

// A shown view of the tree, optionally with the one-transfer reconciliation drawn.
struct ShownView {
    explicit ShownView(const SpeciesTree& species, QSize size, bool withTransfer)
        : transfer(transferBetweenExtremes(species)) {
        view.resize(size);
        view.show();
        shown = QTest::qWaitForWindowExposed(&view);
        view.setSpecies(&species);
        if (withTransfer) view.showReconciliations({&transfer}, {"demo"});
    }
    ReconciliationView view;
    Reconciliation transfer;
    bool shown = false;
};

QRectF onScreen(const QGraphicsView& view, const QGraphicsItem* item) {
    return item->deviceTransform(view.viewportTransform()).mapRect(item->boundingRect());
}

const QGraphicsItem* firstOfKind(const QGraphicsScene& scene, int kind) {
    for (const QGraphicsItem* item : scene.items())
        if (item->data(ReconciliationView::kKindRole).toInt() == kind) return item;
    return nullptr;
}

} // namespace

class GuiReconciliationView : public QObject {
    Q_OBJECT
    SpeciesTree species_ = SpeciesTree::readFile(test::sourcePath("samples/medium/species.nwk"));

  private slots:
    void marksKeepTheirSizeAndFitFillsTheWidth() {
        ShownView shown(species_, {1100, 600}, true);
        QVERIFY(shown.shown);
        ReconciliationView& view = shown.view;
        view.fitAll();
        QVERIFY2(view.rowPixels() >= ReconciliationView::kMinimumRowPixels - 1e-9,
                 qPrintable(QString::number(view.rowPixels())));
        const QRectF drawn = view.mapFromScene(view.scene()->itemsBoundingRect()).boundingRect();
        QVERIFY2(drawn.width() > 0.6 * view.viewport()->width(), qPrintable(QString::number(drawn.width())));
        QVERIFY(view.verticalScrollBar()->maximum() > 0); // 100 leaves do not fit at readable rows

        const QGraphicsItem* glyph = firstOfKind(*view.scene(), ReconciliationView::Glyph);
        QVERIFY(glyph);
        const QSizeF before = onScreen(view, glyph).size();
        QVERIFY2(before.width() >= 8, qPrintable(QString::number(before.width())));
        QWheelEvent zoomOut(QPointF(300, 300), view.mapToGlobal(QPoint(300, 300)), {}, QPoint(0, -480),
                            Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(view.viewport(), &zoomOut);
        QVERIFY(view.userZoomed());
        QCOMPARE(onScreen(view, glyph).size(), before);
    }

    void fitFollowsResizesUntilTheUserZooms() {
        ShownView shown(species_, {900, 500}, false);
        QVERIFY(shown.shown);
        ReconciliationView& view = shown.view;
        const double narrow = view.transform().m11();
        view.resize(1500, 500);
        QTRY_VERIFY(view.transform().m11() > 1.4 * narrow);
        QWheelEvent zoomIn(QPointF(200, 200), view.mapToGlobal(QPoint(200, 200)), {}, QPoint(0, 240),
                           Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(view.viewport(), &zoomIn);
        const double zoomed = view.transform().m11();
        view.resize(900, 500);
        QTest::qWait(50);
        QCOMPARE(view.transform().m11(), zoomed);
        view.fitAll();
        QVERIFY(!view.userZoomed());
        // (a vertical scroll bar may come or go with the zoom, moving the fit by its width)
        QVERIFY2(std::abs(view.transform().m11() - narrow) < 0.03 * narrow,
                 qPrintable(QString("%1 vs %2").arg(view.transform().m11()).arg(narrow)));
    }

    void aggregatedArcsShowTheirFrequencyAndAnArrowhead() {
        ShownView shown(species_, {1000, 600}, false);
        QVERIFY(shown.shown);
        ReconciliationView& view = shown.view;
        const Reconciliation& r = shown.transfer;
        ReconciliationSummary summary = summarize({r, r, r, transferBetweenExtremes(species_)}, species_);
        view.showAggregates({&summary}, {"demo"});
        const QGraphicsItem* arc = firstOfKind(*view.scene(), ReconciliationView::FrequencyArcItem);
        QVERIFY(arc);
        QCOMPARE(arc->data(ReconciliationView::kLabelRole).toString(), QString("1"));
    }

    // A transfer's moving copy starts a new gene lineage, drawn in the palette's next colour; the
    // highlighted pair widens its arcs and fades the others, and survives a redraw.
    void lineageColoursAndHighlightedTransfers() {
        ShownView shown(species_, {1000, 600}, true);
        QVERIFY(shown.shown);
        ReconciliationView& view = shown.view;
        const Reconciliation& r = shown.transfer;
        QCOMPARE(geneLineages(r), (std::vector<int>{0, 0, 1}));
        QVERIFY(view.colouredByLineage());
        QCOMPARE(view.lineagePen(0, 1)->color(), ReconciliationView::familyColour(0));
        QCOMPARE(view.lineagePen(0, 2)->color(), ReconciliationView::familyColour(1));
        const auto* arc =
            dynamic_cast<const QGraphicsPathItem*>(firstOfKind(*view.scene(), ReconciliationView::Arc));
        QVERIFY(arc);
        QCOMPARE(arc->pen().color(), ReconciliationView::familyColour(1)); // the moving copy's colour
        const double width = arc->pen().widthF();
        const int donor = r.nodes[0].events[0].species, recipient = r.nodes[0].events[0].recipient;
        view.highlightTransfer(recipient, donor); // the other direction: nothing of it is drawn
        QCOMPARE(view.highlightedArcs().size(), std::size_t(0));
        QVERIFY(arc->opacity() < 0.5);
        view.highlightTransfer(donor, recipient);
        QCOMPARE(view.highlightedArcs().size(), std::size_t(1));
        QCOMPARE(arc->opacity(), 1.0);
        QVERIFY(arc->pen().widthF() > width);
        view.showReconciliations({&r, &r}, {"one", "two"}); // redrawn: still highlighted, by family colour
        QVERIFY(!view.colouredByLineage());
        QCOMPARE(view.highlightedArcs().size(), std::size_t(2));
        view.highlightTransfer(-1, -1);
        QCOMPARE(view.highlightedArcs().size(), std::size_t(0));
        for (const QGraphicsItem* item : view.items(ReconciliationView::Arc))
            QCOMPARE(item->opacity(), 1.0);
    }

    // On a small view (scale factor 1.5, a short panel) the legend would cover the drawing: it starts
    // as a "Legend" tab that a click opens and a second click closes; a large view shows it open.
    void legendCollapsesOnASmallViewAndOpensOnAClick() {
        ShownView large(species_, {1100, 600}, true);
        QVERIFY(large.shown);
        QVERIFY(!large.view.legendCollapsed());
        ShownView small(species_, {420, 200}, true);
        QVERIFY(small.shown);
        ReconciliationView& view = small.view;
        QVERIFY(view.legendCollapsed());
        QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, QPoint(20, 16));
        QVERIFY(!view.legendCollapsed());
        QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, QPoint(20, 16));
        QVERIFY(view.legendCollapsed());
        // A click elsewhere is the drawing's, not the legend's.
        QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, QPoint(400, 190));
        QVERIFY(view.legendCollapsed());
    }

    // The arrowhead is painted at the recipient's end in screen pixels, just before its glyph:
    // beside the thin line, a few pixels back, the arc's colour appears on both sides, at any zoom.
    void transferArcsEndInAnArrowhead() {
        ShownView shown(species_, {1000, 600}, true);
        QVERIFY(shown.shown);
        ReconciliationView& view = shown.view;
        const auto* arc =
            dynamic_cast<const QGraphicsPathItem*>(firstOfKind(*view.scene(), ReconciliationView::Arc));
        QVERIFY(arc);
        for (int zoomOuts : {0, 2}) {
            for (int k = 0; k < zoomOuts; ++k) { // each halves the scale, as a user's wheel does
                QWheelEvent wheel(QPointF(300, 300), view.mapToGlobal(QPoint(300, 300)), {}, QPoint(0, -462),
                                  Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
                QApplication::sendEvent(view.viewport(), &wheel);
            }
            if (zoomOuts > 0) QVERIFY(!view.leafNamesShown()); // rows too close: names only on hover
            view.centerOn(arc->path().pointAtPercent(1.0));
            QImage image(view.viewport()->size(), QImage::Format_ARGB32);
            image.fill(Qt::white);
            view.viewport()->render(&image);
            const QPointF tip = view.mapFromScene(arc->path().pointAtPercent(1.0));
            const QPointF back = view.mapFromScene(arc->path().pointAtPercent(0.99));
            QPointF inward = back - tip;
            inward /= std::hypot(inward.x(), inward.y());
            const QColor arcColour = arc->pen().color();
            // Pixels of the arc's colour within 5 px of a point: near the head, and on the bare line.
            auto colouredAround = [&](QPointF centre) {
                int n = 0;
                for (int dx = -5; dx <= 5; ++dx)
                    for (int dy = -5; dy <= 5; ++dy) {
                        QPoint p = (centre + QPointF(dx, dy)).toPoint();
                        if (dx * dx + dy * dy > 25 || !image.rect().contains(p)) continue;
                        QColor c = image.pixelColor(p);
                        if (std::abs(c.hue() - arcColour.hue()) < 25 && c.saturation() > 80) ++n;
                    }
                return n;
            };
            double t = 1.0; // a point of the bare line 40 px before the end
            while (t > 0 && QLineF(view.mapFromScene(arc->path().pointAtPercent(t)), tip).length() < 40)
                t -= 0.001;
            const int head = colouredAround(tip + inward * 11.0),
                      line = colouredAround(view.mapFromScene(arc->path().pointAtPercent(t)));
            QVERIFY2(2 * head >= 3 * line && line > 0,
                     qPrintable(QString("%1 zoom-outs: %2 px at the head, %3 on the line")
                                    .arg(zoomOuts)
                                    .arg(head)
                                    .arg(line)));
        }
    }
};

QTEST_MAIN(GuiReconciliationView)
#include "test_gui_reconciliation_view.moc"
