#include "plots/integer_ticker.hpp"

#include <algorithm>
#include <cmath>

namespace gpurec::ui {

double IntegerTicker::getTickStep(const QCPRange& range) {
    // QCustomPlot's readable steps (1, 2, 2.5, 5 × 10^k) are whole from 10 on; below, a step of
    // 2.5 becomes 2 and anything under 1 becomes 1.
    return std::max(1.0, std::floor(QCPAxisTicker::getTickStep(range)));
}

int IntegerTicker::getSubTickCount(double tickStep) {
    // Sub-ticks at whole numbers only: one per unit up to 5, none for a step of 1.
    const int step = static_cast<int>(std::lround(tickStep));
    return step <= 5 ? step - 1 : QCPAxisTicker::getSubTickCount(tickStep);
}

void setCountingAxis(QCPAxis* axis, bool counting) {
    if (counting == !axis->ticker().dynamicCast<IntegerTicker>().isNull()) return;
    const int ticks = axis->ticker()->tickCount();
    QSharedPointer<QCPAxisTicker> ticker(counting ? new IntegerTicker : new QCPAxisTicker);
    ticker->setTickCount(ticks);
    axis->setTicker(ticker);
    axis->setNumberFormat(counting ? "f" : "gb");
    axis->setNumberPrecision(counting ? 0 : 6);
}

} // namespace gpurec::ui
