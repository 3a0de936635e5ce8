#include "panels/wave_stepper.hpp"

#include "engine/wave_schedule.hpp"

#include <QVBoxLayout>

namespace gpurec::ui {

WaveStepper::WaveStepper(QWidget* parent) : QWidget(parent) {
    StepTexts texts;
    texts.prefix = "wave";
    texts.first = tr("First clade");
    texts.firstTip = tr("Back to the first clade computed (Home)");
    texts.back = tr("Step back");
    texts.backTip = tr("One clade back (Left arrow)");
    texts.play = tr("Play the waves");
    texts.pause = tr("Pause the waves");
    texts.playTip = tr("Walk through the clades in the order the waves compute them (Space)");
    texts.forward = tr("Step forward");
    texts.forwardTip = tr("One clade forward (Right arrow)");
    texts.last = tr("Last clade");
    texts.lastTip = tr("To the whole family, computed last (End)");
    texts.slider = tr("Wave step");
    texts.sliderTip = tr("Drag to any step of the computation");
    texts.status = tr("Wave step status");
    controls_ = new StepControls(texts);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(controls_);
    connect(controls_, &StepControls::stepChanged, this, [this](int step) {
        showStatus();
        emit stepChanged(step, step >= 0 ? steps_.at(step) : -1);
    });
    showStatus();
}

void WaveStepper::installShortcuts(QWidget* scope) {
    controls_->installShortcuts(scope);
}

std::vector<std::pair<QString, QString>> WaveStepper::keyHelp() {
    return StepControls::keyHelp(tr("the waves"), tr("clade"));
}

void WaveStepper::setFamily(const GeneFamily* family) {
    family_ = family;
    cladeWave_.clear();
    orderIndex_.clear();
    steps_.clear();
    waveCount_ = 0;
    if (family_) {
        const FamilyWaves waves = computeFamilyWaves(family_->clades);
        const std::vector<int> order = cladesInWaveOrder(waves);
        cladeWave_ = waves.cladeWave;
        waveCount_ = waves.waveCount;
        orderIndex_.resize(order.size());
        for (std::size_t i = 0; i < order.size(); ++i)
            orderIndex_[order[i]] = static_cast<int>(i);
        steps_ = spreadSteps(order, kMaxSteps);
    }
    controls_->setStepCount(stepCount()); // (-1, -1) goes out when a step was shown
    showStatus();
}

int WaveStepper::waveAt(int step) const {
    return cladeWave_.at(steps_.at(step));
}

std::vector<char> WaveStepper::computedAt(int step) const {
    const int upTo = orderIndex_.at(steps_.at(step));
    std::vector<char> done(orderIndex_.size());
    for (std::size_t c = 0; c < done.size(); ++c)
        done[c] = orderIndex_[c] <= upTo;
    return done;
}

void WaveStepper::showStatus() {
    if (!family_ || steps_.empty()) {
        controls_->setStatus(tr("Select a family to step through its waves"));
        return;
    }
    const int step = controls_->step();
    if (step < 0) {
        const bool sampled = stepCount() < static_cast<int>(orderIndex_.size());
        controls_->setStatus(
            sampled ? tr("%1 of %2 clades, in wave order").arg(stepCount()).arg(orderIndex_.size())
                    : tr("%1 clades, in wave order").arg(stepCount()));
        return;
    }
    const int clade = steps_[step];
    const int genes = family_->clades.cladeSize[clade];
    controls_->setStatus(tr("Wave %1 of %2 · clade %3 · %4")
                             .arg(cladeWave_[clade] + 1)
                             .arg(waveCount_)
                             .arg(clade)
                             .arg(genes == 1 ? tr("1 gene") : tr("%1 genes").arg(genes)));
}

} // namespace gpurec::ui
