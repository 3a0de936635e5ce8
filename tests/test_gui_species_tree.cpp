// The species-tree view at scale: clades collapse into labelled triangles on a real double-click
// and expand again, Fit to selection fills the view with the selected clade, the search field
// selects named species and cycles through partial matches, the circular layout keeps the tree's
// geometry, and at 1,331 nodes the leaf names are readable or hidden with the names on hover.
#include "gui_test_support.hpp"
#include "panels/species_tree_panel.hpp"
#include "simulated_data.hpp"
#include "views/species_tree_view.hpp"

#include <QAbstractItemView>
#include <QCompleter>
#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QLabel>
#include <QMenu>
#include <QToolButton>
#include <QToolTip>
#include <numbers>

using namespace gpurec;
using namespace gpurec::ui;

namespace {

std::vector<const QGraphicsItem*> itemsOfKind(const QGraphicsScene& scene, int kind,
                                              bool visibleOnly = true) {
    std::vector<const QGraphicsItem*> out;
    for (const QGraphicsItem* item : scene.items())
        if (item->data(SpeciesTreeView::kKindRole).toInt() == kind && (!visibleOnly || item->isVisible()))
            out.push_back(item);
    return out;
}

int leafCount(const SpeciesTree& tree, int e) {
    return tree.isLeaf(e) ? 1 : leafCount(tree, tree.left(e)) + leafCount(tree, tree.right(e));
}

// An internal node with between `low` and `high` leaves.
int cladeOfSize(const SpeciesTree& tree, int low, int high) {
    for (int e = 0; e < tree.size(); ++e)
        if (!tree.isLeaf(e) && leafCount(tree, e) >= low && leafCount(tree, e) <= high) return e;
    return -1;
}

QRectF onScreen(const QGraphicsView& view, const QGraphicsItem* item) {
    return item->deviceTransform(view.viewportTransform()).mapRect(item->boundingRect());
}

double angleOf(const QPointF& p) {
    const double a = std::atan2(p.y(), p.x());
    return a < 0 ? a + 2 * std::numbers::pi : a;
}

struct ShownView {
    explicit ShownView(const SpeciesTree& tree, QSize size = {900, 700}) {
        view.resize(size);
        shown = test::showActive(view);
        view.setTree(&tree);
    }
    SpeciesTreeView view;
    bool shown = false;
};

} // namespace

class GuiSpeciesTree : public QObject {
    Q_OBJECT
    SpeciesTree medium_ = SpeciesTree::readFile(test::sourcePath("samples/medium/species.nwk"));
    SpeciesTree large_ = test::simulatedSpeciesTree(666, 12); // 1,331 nodes, as the hogenom-like preset

  private slots:
    void doubleClickCollapsesAndExpandsAClade() {
        ShownView shown(medium_);
        QVERIFY(shown.shown);
        SpeciesTreeView& view = shown.view;
        std::vector<double> values(medium_.size());
        for (int e = 0; e < medium_.size(); ++e)
            values[e] = e;
        view.setValues(values, ColourScale::fit(values, false), "node");
        const int node = cladeOfSize(medium_, 8, 20);
        QVERIFY(node >= 0);
        const int leaves = leafCount(medium_, node);
        const std::size_t before = itemsOfKind(*view.scene(), SpeciesTreeView::LeafLabel).size();
        QCOMPARE(before, std::size_t(medium_.leafCount())); // readable rows at Fit: every name shown

        view.centerOn(view.nodePosition(node));
        QTest::mouseDClick(view.viewport(), Qt::LeftButton, {}, view.mapFromScene(view.nodePosition(node)));
        QVERIFY(view.isCollapsed(node));
        QCOMPARE(itemsOfKind(*view.scene(), SpeciesTreeView::LeafLabel).size(), before - leaves);
        const auto triangles = itemsOfKind(*view.scene(), SpeciesTreeView::Triangle);
        QCOMPARE(triangles.size(), std::size_t(1));
        QCOMPARE(triangles.front()->data(SpeciesTreeView::kNodeRole).toInt(), node);
        QCOMPARE(triangles.front()->data(SpeciesTreeView::kLeafCountRole).toInt(), leaves);
        // Coloured by the node's value, labelled with the clade's name and leaf count.
        const auto* triangle = static_cast<const QGraphicsPathItem*>(triangles.front());
        QCOMPARE(triangle->pen().color(), view.branchColour(node));
        QVERIFY(view.branchColour(node) != view.branchColour(medium_.root()));
        const auto cladeLabels = itemsOfKind(*view.scene(), SpeciesTreeView::CladeLabel);
        QCOMPARE(cladeLabels.size(), std::size_t(1));
        QCOMPARE(static_cast<const QGraphicsSimpleTextItem*>(cladeLabels.front())->text(),
                 QString("%1 (%2 leaves)").arg(QString::fromStdString(medium_.name(node))).arg(leaves));
        // The remaining rows close up: the clade takes one row.
        TreeLayout layout = layoutRectangular(medium_, [&] {
            std::vector<char> c(medium_.size(), 0);
            c[node] = 1;
            return c;
        }());
        QCOMPARE(layout.rows, medium_.leafCount() - leaves + 1);
        QCOMPARE(view.nodePosition(medium_.leaves().back()).y(),
                 (layout.rows - 1) * view.rowPixels() / view.transform().m22());

        view.centerOn(view.nodePosition(node));
        QTest::mouseDClick(view.viewport(), Qt::LeftButton, {}, view.mapFromScene(view.nodePosition(node)));
        QVERIFY(!view.isCollapsed(node));
        QCOMPARE(itemsOfKind(*view.scene(), SpeciesTreeView::LeafLabel).size(), before);
        QVERIFY(itemsOfKind(*view.scene(), SpeciesTreeView::Triangle, false).empty());

        view.setCollapsed(medium_.left(medium_.root()), true);
        view.setCollapsed(medium_.right(medium_.root()), true);
        QCOMPARE(itemsOfKind(*view.scene(), SpeciesTreeView::Triangle).size(), std::size_t(2));
        view.expandAll();
        QVERIFY(!view.anyCollapsed());
        QCOMPARE(itemsOfKind(*view.scene(), SpeciesTreeView::LeafLabel).size(), before);
        // Selecting a species inside a collapsed clade opens it.
        view.setCollapsed(node, true);
        view.selectSpecies(node - 1);
        QVERIFY(!view.isCollapsed(node));
        QCOMPARE(view.selectedSpecies(), node - 1);
    }

    void contextMenuCollapsesAndExpandsAll() {
        ShownView shown(medium_);
        QVERIFY(shown.shown);
        SpeciesTreeView& view = shown.view;
        const int node = cladeOfSize(medium_, 3, 10);
        // Right-clicks the node and picks `entry` from the menu once it shows.
        auto pick = [&](const QString& entry) {
            view.centerOn(view.nodePosition(node));
            const QPoint at = view.mapFromScene(view.nodePosition(node));
            QString found;
            QTimer::singleShot(50, [&] {
                auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget());
                if (!menu) return;
                for (QAction* a : menu->actions())
                    if (a->text() == entry && a->isEnabled()) {
                        found = entry;
                        a->trigger();
                    }
                menu->close();
            });
            QContextMenuEvent event(QContextMenuEvent::Mouse, at, view.viewport()->mapToGlobal(at));
            QApplication::sendEvent(view.viewport(), &event);
            return found == entry;
        };
        QVERIFY(pick("Collapse clade"));
        QVERIFY(view.isCollapsed(node));
        QCOMPARE(view.selectedSpecies(), node);
        QVERIFY(pick("Expand clade"));
        QVERIFY(!view.isCollapsed(node));
        view.setCollapsed(node, true);
        view.setCollapsed(medium_.right(medium_.root()), true);
        QVERIFY(pick("Expand all"));
        QVERIFY(!view.anyCollapsed());
    }

    void fitToSelectionFillsTheViewWithTheClade() {
        for (bool circular : {false, true}) {
            ShownView shown(medium_);
            QVERIFY(shown.shown);
            SpeciesTreeView& view = shown.view;
            view.setCircular(circular);
            const int node = cladeOfSize(medium_, 6, 15);
            view.selectSpecies(node);
            view.fitToSelection();
            QVERIFY(view.userZoomed());
            const QRectF drawn = view.mapFromScene(view.cladeRect(node)).boundingRect();
            const QRectF port = view.viewport()->rect();
            QVERIFY2(port.adjusted(-2, -2, 2, 2).contains(drawn), qPrintable(QString("%1 %2 %3 %4")
                                                                                 .arg(drawn.left())
                                                                                 .arg(drawn.top())
                                                                                 .arg(drawn.right())
                                                                                 .arg(drawn.bottom())));
            const double widthShare = drawn.width() / port.width(),
                         heightShare = drawn.height() / port.height();
            // Rectangular: both directions filled (the names keep room on the right); circular: one.
            if (!circular)
                QVERIFY2(widthShare > 0.6 && heightShare > 0.9,
                         qPrintable(QString("%1 %2").arg(widthShare).arg(heightShare)));
            else
                QVERIFY2(std::max(widthShare, heightShare) > 0.6,
                         qPrintable(QString("%1 %2").arg(widthShare).arg(heightShare)));
        }
    }

    // A narrow panel (QT_SCALE_FACTOR 1.5) draws a long "Colour by" name elided, never cut off
    // mid-word; a wide one draws it whole.
    void colourByNameElidesInANarrowPanel() {
        SpeciesTreePanel panel;
        auto* colourBy = panel.findChild<ElidingComboBox*>("colourBy");
        QVERIFY(colourBy);
        colourBy->setCurrentIndex(colourBy->findData(static_cast<int>(SpeciesQuantity::CladeProbability)));
        const QString name = colourBy->currentText();
        QVERIFY(test::showActive(panel));
        panel.resize(200, 600); // 300 device pixels at QT_SCALE_FACTOR 1.5
        QVERIFY(QTest::qWaitFor([&] { return panel.width() == 200; }));
        const QString narrow = colourBy->shownText();
        QVERIFY2(narrow.endsWith(QChar(0x2026)) && name.startsWith(narrow.chopped(1)), qPrintable(narrow));
        QVERIFY(colourBy->fontMetrics().horizontalAdvance(narrow) < colourBy->width());
        panel.resize(1200, 600);
        QVERIFY(QTest::qWaitFor([&] { return panel.width() == 1200; }));
        QCOMPARE(colourBy->shownText(), name);
    }

    void panelSearchSelectsCyclesAndReportsMissingNames() {
        auto data = std::make_shared<Dataset>();
        data->species = medium_;
        SpeciesTreePanel panel;
        panel.resize(500, 900);
        QVERIFY(test::showActive(panel));
        panel.setDataset(data, {}); // no engine: the search needs no tables
        SpeciesTreeView* view = panel.view();
        auto* search = panel.findChild<QLineEdit*>("speciesSearch");
        QVERIFY(search && !search->accessibleName().isEmpty() && !search->toolTip().isEmpty());
        QVERIFY(search->completer());
        QCOMPARE(search->completer()->model()->rowCount(), medium_.size());
        QSignalSpy selected(&panel, &SpeciesTreePanel::speciesSelected); // what the window listens to
        auto type = [&](const QString& text) {
            search->setFocus();
            search->selectAll();
            QTest::keyClicks(search, text);
            search->completer()->popup()->hide(); // Enter goes to the field, not the popup
        };
        auto enter = [&](const QString& text) {
            type(text);
            QTest::keyClick(search, Qt::Key_Return);
        };

        const int leaf = medium_.find("S042");
        enter("S042");
        QCOMPARE(view->selectedSpecies(), leaf);
        QCOMPARE(selected.last().at(0).toInt(), leaf);
        QVERIFY(view->viewport()->rect().contains(view->mapFromScene(view->nodePosition(leaf))));
        QTest::keyClick(search, Qt::Key_Return); // the named node stays selected
        QCOMPARE(view->selectedSpecies(), leaf);

        // Partial text: Enter steps through the matches in order and wraps around.
        std::vector<int> matches;
        for (int e = 0; e < medium_.size(); ++e)
            if (QString::fromStdString(medium_.name(e)).contains("S09", Qt::CaseInsensitive))
                matches.push_back(e);
        QVERIFY(matches.size() >= 3);
        type("S09"); // typing selects the first match
        QCOMPARE(view->selectedSpecies(), matches[0]);
        QTest::keyClick(search, Qt::Key_Return);
        QCOMPARE(view->selectedSpecies(), matches[1]);
        QCOMPARE(selected.last().at(0).toInt(), matches[1]);
        QCOMPARE(panel.findChild<QLabel*>("searchResult")->text(), QString("2 of %1").arg(matches.size()));
        for (std::size_t i = 1; i < matches.size(); ++i)
            QTest::keyClick(search, Qt::Key_Return);
        QCOMPARE(view->selectedSpecies(), matches[0]);

        enter("no_such_species");
        QCOMPARE(view->matchCount(), 0);
        QCOMPARE(panel.findChild<QLabel*>("searchResult")->text(), QString("no match"));
        QCOMPARE(panel.findChild<QLabel*>("speciesInfo")->text(),
                 QString("No species or node named “no_such_species”"));

        // Picking a completion selects that node.
        search->setFocus();
        search->selectAll();
        QTest::keyClicks(search, "s07");
        QAbstractItemView* popup = search->completer()->popup();
        QTRY_VERIFY(popup->isVisible());
        const int s075 = medium_.find("S075");
        for (int row = 0; row < popup->model()->rowCount(); ++row)
            if (popup->model()->index(row, 0).data().toString() == "S075")
                popup->setCurrentIndex(popup->model()->index(row, 0));
        QTest::keyClick(popup, Qt::Key_Return);
        QCOMPARE(search->text(), QString("S075"));
        QCOMPARE(view->selectedSpecies(), s075);
        QCOMPARE(selected.last().at(0).toInt(), s075);

        // Fit to selection from its button, with its shortcut in the tooltip (the completer's popup
        // and the message's tooltip took the offscreen platform's activation: a click gives it back).
        QToolTip::hideText();
        QVERIFY(test::showActive(panel));
        view->selectSpecies(medium_.parent(leaf));
        auto* fit = panel.findChild<QToolButton*>("fitSelection");
        QVERIFY(fit && !fit->accessibleName().isEmpty() && fit->toolTip().contains("Ctrl+Shift+F"));
        QVERIFY(test::click(fit));
        QVERIFY(view->userZoomed());
        QVERIFY(view->rowPixels() > 100); // two leaves fill the height
        auto* circular = panel.findChild<QCheckBox*>("circularLayout");
        QVERIFY(circular && !circular->accessibleName().isEmpty());
        QVERIFY(test::click(circular));
        QVERIFY(view->circular());
    }

    void circularLayoutKeepsTheTreeGeometry() {
        ShownView shown(large_, {800, 800});
        QVERIFY(shown.shown);
        SpeciesTreeView& view = shown.view;
        view.setCircular(true);
        double radius = -1;
        for (int e = 0; e < large_.size(); ++e) {
            const QPointF p = view.nodePosition(e);
            if (large_.isLeaf(e)) {
                if (radius < 0) radius = std::hypot(p.x(), p.y());
                QVERIFY(std::abs(std::hypot(p.x(), p.y()) - radius) < 1e-6 * radius);
            } else {
                const double a = angleOf(p), l = angleOf(view.nodePosition(large_.left(e))),
                             r = angleOf(view.nodePosition(large_.right(e)));
                QVERIFY(std::min(l, r) < a && a < std::max(l, r));
                QVERIFY(std::hypot(p.x(), p.y()) < radius);
            }
        }
        // The whole disc is in view, and the names are hidden (rows too close) but on hover.
        const QRectF drawn =
            view.mapFromScene(QRectF(-radius, -radius, 2 * radius, 2 * radius)).boundingRect();
        QVERIFY(QRectF(view.viewport()->rect()).adjusted(-1, -1, 1, 1).contains(drawn));
        QVERIFY(!view.leafNamesShown());
        QVERIFY(itemsOfKind(*view.scene(), SpeciesTreeView::LeafLabel).empty());
        // Zoomed in, the names appear, turned along their radius, at screen size.
        view.zoomBy(8);
        QVERIFY(view.leafNamesShown());
        const int leaf = large_.leaves().at(large_.leafCount() / 4);
        view.centerOn(view.nodePosition(leaf));
        const QGraphicsItem* label = nullptr;
        for (const QGraphicsItem* item : itemsOfKind(*view.scene(), SpeciesTreeView::LeafLabel))
            if (item->data(SpeciesTreeView::kNodeRole).toInt() == leaf) label = item;
        QVERIFY(label);
        const double turned = std::atan2(label->transform().m12(), label->transform().m11());
        const double along = angleOf(view.nodePosition(leaf));
        QVERIFY(std::abs(std::sin(turned - along)) < 1e-6); // parallel to the radius (maybe flipped)
        const QSizeF size = onScreen(view, label).size();
        view.zoomBy(1.5);
        QVERIFY(std::abs(onScreen(view, label).height() - size.height()) < 1e-6);
        // Clicking a leaf's branch selects it; double-clicking a node collapses it, as in the cladogram.
        const QPointF middle = view.nodePosition(leaf) * 0.995;
        view.centerOn(middle);
        QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, view.mapFromScene(middle));
        QCOMPARE(view.selectedSpecies(), leaf);
        QCOMPARE(view.toolTipOf(leaf), QString::fromStdString(large_.name(leaf)));
        const int node = large_.parent(large_.parent(leaf));
        view.centerOn(view.nodePosition(node));
        QTest::mouseDClick(view.viewport(), Qt::LeftButton, {}, view.mapFromScene(view.nodePosition(node)));
        QVERIFY(view.isCollapsed(node));
        QCOMPARE(itemsOfKind(*view.scene(), SpeciesTreeView::Triangle).size(), std::size_t(1));
    }

    void largeTreeNamesAreReadableOrHiddenWithTooltips() {
        QCOMPARE(large_.size(), 1331);
        ShownView shown(large_, {420, 900}); // a narrow panel beside the other views
        QVERIFY(shown.shown);
        SpeciesTreeView& view = shown.view;
        // Vertical-only stretch: the full width, rows far enough apart for readable names.
        QVERIFY(view.rowPixels() >= SpeciesTreeView::kMinimumRowPixels - 1e-9);
        QVERIFY(view.verticalScrollBar()->maximum() > 0);
        const QRectF branches = view.mapFromScene(view.cladeRect(large_.root())).boundingRect();
        QVERIFY2(branches.width() > 0.5 * view.viewport()->width(),
                 qPrintable(QString::number(branches.width())));
        QVERIFY(view.leafNamesShown());
        const auto labels = itemsOfKind(*view.scene(), SpeciesTreeView::LeafLabel);
        QCOMPARE(labels.size(), std::size_t(large_.leafCount()));
        for (const QGraphicsItem* label : labels) {
            const QRectF box = onScreen(view, label);
            QVERIFY2(box.height() >= SpeciesTreeView::kMinimumLabelPixels,
                     qPrintable(QString::number(box.height())));
            QVERIFY(box.height() <= 1.5 * view.rowPixels()); // no overlapping rows
        }
        // Zoomed out below the readable size: names hidden, each still on its branch's tooltip.
        view.zoomBy(0.3);
        QVERIFY(view.labelPixels() < SpeciesTreeView::kMinimumLabelPixels);
        QVERIFY(itemsOfKind(*view.scene(), SpeciesTreeView::LeafLabel).empty());
        for (int e : large_.leaves())
            QCOMPARE(view.toolTipOf(e), QString::fromStdString(large_.name(e)));
        // A search match stays visible.
        view.search(QString::fromStdString(large_.name(large_.leaves().front())));
        QVERIFY(!itemsOfKind(*view.scene(), SpeciesTreeView::LeafLabel).empty());
    }
};

QTEST_MAIN(GuiSpeciesTree)
#include "test_gui_species_tree.moc"
