#include "views/transfer_heat_map.hpp"

#include "panels/transfer_pairs_model.hpp"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace gpurec::ui {

namespace {
constexpr int kNameGap = 4;
// Names are drawn when a cell is at least this share of a line of text.
constexpr double kReadableShare = 0.85;
} // namespace

TransferHeatMap::TransferHeatMap(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setAccessibleName(tr("Transfer rate matrix"));
}

void TransferHeatMap::setModel(const TransferPairsModel* model) {
    model_ = model;
    connect(model, &QAbstractItemModel::modelReset, this, [this] {
        rebuildAxes();
        repaintCells();
    });
    connect(model, &QAbstractItemModel::dataChanged, this, &TransferHeatMap::repaintCells);
    rebuildAxes();
    repaintCells();
}

QString TransferHeatMap::nodeName(int node) const {
    return QString::fromStdString(model_->dataset()->species.name(node));
}

void TransferHeatMap::rebuildAxes() {
    donors_.clear();
    recipients_.clear();
    pairAtCell_.clear();
    highlighted_ = -1;
    const int nodes = model_ && model_->dataset() ? model_->dataset()->species.size() : 0;
    rowOf_.assign(nodes, -1);
    columnOf_.assign(nodes, -1);
    const std::vector<Highway>& pairs = model_ ? model_->pairs() : std::vector<Highway>{};
    for (const Highway& h : pairs) {
        rowOf_[h.source] = 0;
        columnOf_[h.destination] = 0;
    }
    for (int node = 0; node < nodes; ++node) { // postorder: a clade's nodes side by side
        if (rowOf_[node] == 0) {
            rowOf_[node] = static_cast<int>(donors_.size());
            donors_.push_back(node);
        }
        if (columnOf_[node] == 0) {
            columnOf_[node] = static_cast<int>(recipients_.size());
            recipients_.push_back(node);
        }
    }
    pairAtCell_.assign(donors_.size() * recipients_.size(), -1);
    for (int p = 0; p < static_cast<int>(pairs.size()); ++p)
        pairAtCell_[static_cast<std::size_t>(rowOf_[pairs[p].source]) * recipients_.size() +
                    columnOf_[pairs[p].destination]] = p;
    setCellSize(cell_);
}

void TransferHeatMap::repaintCells() {
    const std::vector<double> rates = model_ ? model_->rates() : std::vector<double>{};
    scale_ = ColourScale::fit(rates, true);
    cells_ = QImage(columnCount(), rowCount(), QImage::Format_RGB32);
    for (int r = 0; r < rowCount(); ++r)
        for (int c = 0; c < columnCount(); ++c) {
            const int p = pairAtCell_[static_cast<std::size_t>(r) * columnCount() + c];
            cells_.setPixelColor(c, r, p < 0 ? noPairColour() : scale_.colour(rates[p]));
        }
    update();
}

QFont TransferHeatMap::nameFont() const {
    QFont f = font();
    if (f.pointSizeF() > 0)
        f.setPointSizeF(f.pointSizeF() * nameScale_);
    else
        f.setPixelSize(std::max(1, static_cast<int>(std::lround(f.pixelSize() * nameScale_))));
    return f;
}

double TransferHeatMap::readableCell() const {
    return kReadableShare * QFontMetricsF(nameFont()).height();
}

int TransferHeatMap::nameStride() const {
    const double readable = readableCell();
    if (cell_ >= readable) return 1;
    const int stride = static_cast<int>(std::ceil(readable / cell_ - 1e-9));
    return stride <= kMaxNameStride ? stride : 0;
}

QSize TransferHeatMap::nameRoom() const {
    if (!model_ || !model_->dataset()) return {0, 0};
    const QFontMetrics fm(nameFont());
    int left = 0, top = 0;
    for (int node : donors_)
        left = std::max(left, fm.horizontalAdvance(nodeName(node)));
    for (int node : recipients_)
        top = std::max(top, fm.horizontalAdvance(nodeName(node)));
    const int limit = kMaxNameCharacters * fm.averageCharWidth();
    return {std::min(left, limit) + 2 * kNameGap, std::min(top, limit) + 2 * kNameGap};
}

QSize TransferHeatMap::margins() const {
    const int stride = nameStride();
    return stride == 0 ? QSize(0, 0) : nameRoom();
}

void TransferHeatMap::setCellSize(double pixels) {
    cell_ = std::clamp(pixels, minCellSize(), kMaxCell);
    resize(sizeHint());
    update();
}

void TransferHeatMap::fitTo(const QSize& size) {
    if (rowCount() == 0 || columnCount() == 0) return;
    auto fits = [&](const QSize& m) {
        const double cell = std::min((size.width() - m.width()) / double(columnCount()),
                                     (size.height() - m.height()) / double(rowCount()));
        return std::clamp(std::floor(cell * 4) / 4, minCellSize(), kMaxCell);
    };
    // A slightly smaller font keeps the names of a mid-sized tree beside cells that fill the view,
    // where the full font would leave the cells too short to read them by.
    for (int step = 0; 1.0 - 0.05 * step >= kSmallestNames - 1e-9; ++step) {
        nameScale_ = 1.0 - 0.05 * step;
        const double named = fits(nameRoom());
        if (named >= readableCell()) {
            setCellSize(named);
            return;
        }
    }
    nameScale_ = 1.0;
    const double strided = fits(nameRoom()); // the names of every k-th row and column
    if (strided >= readableCell() / kMaxNameStride) {
        setCellSize(strided);
        return;
    }
    // No names: cells just short of the size at which some are drawn.
    setCellSize(std::min(fits({0, 0}), std::floor(0.99 * readableCell() / kMaxNameStride * 4) / 4));
}

QSize TransferHeatMap::sizeHint() const {
    const QSize m = margins();
    return {m.width() + static_cast<int>(std::ceil(columnCount() * cell_)) + 1,
            m.height() + static_cast<int>(std::ceil(rowCount() * cell_)) + 1};
}

int TransferHeatMap::pairAt(const QPoint& pos) const {
    const QSize m = margins();
    const int c = static_cast<int>(std::floor((pos.x() - m.width()) / cell_));
    const int r = static_cast<int>(std::floor((pos.y() - m.height()) / cell_));
    if (r < 0 || c < 0 || r >= rowCount() || c >= columnCount() || onNames(pos)) return -1;
    return pairAtCell_[static_cast<std::size_t>(r) * columnCount() + c];
}

QRect TransferHeatMap::cellRect(int pair) const {
    const Highway& h = model_->pairs()[pair];
    const QSize m = margins();
    const QPointF topLeft(m.width() + columnOf_[h.destination] * cell_,
                          m.height() + rowOf_[h.source] * cell_);
    return QRectF(topLeft, QSizeF(cell_, cell_)).toAlignedRect();
}

QString TransferHeatMap::toolTipAt(const QPoint& pos) const {
    const int p = pairAt(pos);
    return p < 0 ? QString() : model_->describe(p);
}

void TransferHeatMap::setHighlighted(int pair) {
    highlighted_ = pair;
    update();
}

bool TransferHeatMap::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this, cellRect(pairAt(help->pos())));
        return true;
    }
    return QWidget::event(event);
}

QPoint TransferHeatMap::namesAt() const {
    const QRect shown = visibleRegion().boundingRect();
    return {std::max(0, shown.left()), std::max(0, shown.top())};
}

bool TransferHeatMap::onNames(const QPoint& pos) const {
    if (nameStride() == 0) return false;
    const QPoint at = namesAt();
    const QSize m = margins();
    return pos.x() < at.x() + m.width() || pos.y() < at.y() + m.height();
}

void TransferHeatMap::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.fillRect(rect(), palette().color(QPalette::Base));
    if (cells_.isNull()) return;
    const QSize m = margins();
    const QRectF matrix(m.width(), m.height(), columnCount() * cell_, rowCount() * cell_);
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false); // sharp cells at any zoom
    painter.drawImage(matrix, cells_);
    if (namesShown()) {
        painter.setPen(QColor(255, 255, 255, 90)); // cell borders, once cells are large
        for (int r = 0; r <= rowCount(); ++r)
            painter.drawLine(QPointF(matrix.left(), matrix.top() + r * cell_),
                             QPointF(matrix.right(), matrix.top() + r * cell_));
        for (int c = 0; c <= columnCount(); ++c)
            painter.drawLine(QPointF(matrix.left() + c * cell_, matrix.top()),
                             QPointF(matrix.left() + c * cell_, matrix.bottom()));
    }
    if (highlighted_ >= 0) {
        const QRect cell = cellRect(highlighted_).adjusted(-2, -2, 2, 2);
        painter.setBrush(Qt::NoBrush);
        painter.setPen(QPen(Qt::white, 3));
        painter.drawRect(cell);
        painter.setPen(QPen(QColor(200, 30, 30), 1.5));
        painter.drawRect(cell);
    }
    const int stride = nameStride();
    if (stride == 0) return;
    // The names stay at the view's left and top edges, over the cells scrolled under them, so that
    // a region of a large matrix is read with its donors and recipients.
    const QPoint at = namesAt();
    const QRect shown = visibleRegion().boundingRect();
    const QColor base = palette().color(QPalette::Base);
    painter.fillRect(QRect(at.x(), shown.top(), m.width(), shown.height()), base);
    painter.fillRect(QRect(shown.left(), at.y(), shown.width(), m.height()), base);
    painter.setPen(palette().color(QPalette::Text));
    painter.setFont(nameFont());
    const QFontMetrics fm(nameFont());
    const int line = fm.height();
    // A label centred on its row or column, kept within the matrix's extent (the first and last
    // ones, taller than their cells, would be cut by the other names' band or the view's edge).
    auto labelStart = [&](double cellStart, double matrixStart, int count) {
        const double last = std::max(matrixStart, matrixStart + count * cell_ - line);
        return std::clamp(cellStart + (cell_ - line) / 2, matrixStart, last);
    };
    // Names elided at their start to the room; when only every stride-th is drawn, each with a
    // tick in the gap pointing at its row or column.
    auto drawName = [&](const QRectF& room, const QLineF& tick, int node, Qt::Alignment align) {
        painter.drawText(room, align | Qt::AlignVCenter,
                         fm.elidedText(nodeName(node), Qt::ElideLeft, static_cast<int>(room.width())));
        if (stride > 1) painter.drawLine(tick);
    };
    painter.save();
    painter.setClipRect(QRect(at.x(), at.y() + m.height(), m.width(), height()));
    painter.translate(at.x(), 0);
    for (int r = 0; r < rowCount(); r += stride) {
        const double top = m.height() + r * cell_, middle = top + cell_ / 2;
        // The room holds the widest name and a gap either side: the whole width but the gap next
        // to the cells, so that rounding never elides a name that fits.
        drawName(QRectF(0, labelStart(top, m.height(), rowCount()), m.width() - kNameGap, line),
                 QLineF(m.width() - kNameGap + 1, middle, m.width(), middle), donors_[r], Qt::AlignRight);
    }
    painter.restore();
    painter.save();
    painter.setClipRect(QRect(at.x() + m.width(), at.y(), width(), m.height()));
    painter.translate(0, at.y() + m.height());
    painter.rotate(-90); // column names read bottom to top, starting above their column
    for (int c = 0; c < columnCount(); c += stride) {
        const double left = m.width() + c * cell_, middle = left + cell_ / 2;
        drawName(QRectF(kNameGap, labelStart(left, m.width(), columnCount()), m.height() - kNameGap, line),
                 QLineF(0, middle, kNameGap - 1, middle), recipients_[c], Qt::AlignLeft);
    }
    painter.restore();
}

void TransferHeatMap::mousePressEvent(QMouseEvent* event) {
    const int p = pairAt(event->position().toPoint());
    if (event->button() == Qt::LeftButton && p >= 0) emit pairClicked(p);
    QWidget::mousePressEvent(event);
}

void TransferHeatMap::wheelEvent(QWheelEvent* event) {
    if (!(event->modifiers() & Qt::ControlModifier)) { // the scroll area scrolls
        event->ignore();
        return;
    }
    emit zoomRequested(std::pow(1.0015, event->angleDelta().y()));
    event->accept();
}

} // namespace gpurec::ui
