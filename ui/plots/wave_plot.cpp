#include "plots/wave_plot.hpp"

#include "colours/wave_colours.hpp"
#include "plots/integer_ticker.hpp"

#include <QFontMetrics>

namespace gpurec::ui {

WavePlot::WavePlot(QWidget* parent) : QCustomPlot(parent) {
    setObjectName("wavePlot");
    xAxis->setLabel(tr("wave"));
    setCountingAxis(xAxis, true);
    yAxis->setLabel(tr("clades (log scale)"));
    connect(this, &QCustomPlot::afterLayout, this, &WavePlot::fitTitle);
    yAxis->setScaleType(QCPAxis::stLogarithmic);
    yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    yAxis->setNumberFormat("gb");
    yAxis2->setVisible(true);
    yAxis2->setLabel(tr("splits"));
    yAxis2->setScaleType(QCPAxis::stLogarithmic);
    yAxis2->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    yAxis2->setNumberFormat("gb");
    for (WavePhase phase : {WavePhase::Leaves, WavePhase::Internal, WavePhase::Root}) {
        auto* bars = new QCPBars(xAxis, yAxis);
        bars->setName(phaseName(phase));
        bars->setPen(Qt::NoPen);
        bars->setBrush(phaseColour(phase).lighter(130));
        bars->setWidth(0.8);
        phaseBars_.push_back(bars);
    }
    familyBars_ = new QCPBars(xAxis, yAxis);
    familyBars_->setName(tr("selected family's clades"));
    familyBars_->setPen(Qt::NoPen);
    familyBars_->setBrush(QColor(40, 40, 40, 200));
    familyBars_->setWidth(0.35);
    splits_ = addGraph(xAxis, yAxis2);
    splits_->setName(tr("splits (right axis)"));
    splits_->setPen(QPen(QColor(170, 40, 90), 1.5));
    splits_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 4));
    legend->setVisible(true);
    legend->setFont(QFont(font().family(), 8));
    legend->setBorderPen(Qt::NoPen);
    legend->setIconSize(18, 10);
    legend->setWrap(3);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    axisRect()->insetLayout()->take(legend);
    plotLayout()->addElement(1, 0, legend);
    plotLayout()->setRowStretchFactor(1, 0.001);
    setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    axisRect()->setRangeZoom(Qt::Horizontal);
    axisRect()->setRangeDrag(Qt::Horizontal);
}

void WavePlot::fitTitle() {
    // A short plot (a small screen, QT_SCALE_FACTOR 1.5) cannot stand the full title on its side.
    const QString full = tr("clades (log scale)");
    const QString want = QFontMetrics(yAxis->labelFont()).horizontalAdvance(full) <= axisRect()->height()
                             ? full
                             : tr("clades");
    if (yAxis->label() == want) return;
    yAxis->setLabel(want);
    replot(rpQueuedReplot); // the title's width is part of the margins
}

void WavePlot::setSchedule(const WaveSchedule* schedule) {
    schedule_ = schedule;
    for (QCPBars* b : phaseBars_)
        b->data()->clear();
    familyBars_->data()->clear();
    splits_->data()->clear();
    if (!schedule_) {
        replot();
        return;
    }
    double maxClades = 1, maxSplits = 1;
    for (std::size_t k = 0; k < schedule_->waves.size(); ++k) {
        const CrossFamilyWave& wave = schedule_->waves[k];
        const int phase = static_cast<int>(schedule_->phase[k]) - 1;
        phaseBars_[phase]->addData(k, wave.clades.size());
        if (wave.splits > 0) splits_->addData(k, wave.splits);
        maxClades = std::max<double>(maxClades, wave.clades.size());
        maxSplits = std::max<double>(maxSplits, wave.splits);
    }
    xAxis->setRange(-0.7, schedule_->waves.size() - 0.3);
    yAxis->setRange(0.8, maxClades * 3);
    yAxis2->setRange(0.8, maxSplits * 3);
    replot();
}

void WavePlot::setSelectedFamily(int family) {
    familyBars_->data()->clear();
    if (schedule_ && family >= 0)
        for (std::size_t k = 0; k < schedule_->waves.size(); ++k) {
            int n = 0;
            for (const CladeRef& ref : schedule_->waves[k].clades)
                n += ref.family == family;
            if (n > 0) familyBars_->addData(k, n);
        }
    replot();
}

} // namespace gpurec::ui
