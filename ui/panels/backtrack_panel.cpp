#include "panels/backtrack_panel.hpp"

#include "panels/clade_label.hpp"
#include "panels/step_controls.hpp"
#include "window/eliding_label.hpp"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace gpurec::ui {

namespace {

QString probabilityText(double p) {
    return p >= 0.001 ? QString::number(p, 'f', 3) : QString::number(p, 'g', 3);
}

QString drawTitle(StoryDraw draw) {
    switch (draw) {
    case StoryDraw::Origin:
        return QObject::tr("Origination");
    case StoryDraw::Event:
        return QObject::tr("Event");
    case StoryDraw::Recipient:
        return QObject::tr("Recipient");
    }
    return {};
}

} // namespace

StoryOutcome tellStory(std::shared_ptr<const Dataset> data, const FamilyTablesSource& tables,
                       const SamplingSource& source, int family, int sample, const Reconciliation& expected) {
    StoryOutcome out;
    out.family = family;
    out.sample = sample;
    try {
        const std::vector<FamilyTables> t = tables(source.theta, source.settings.solver, {family});
        const SpeciesLayout layout(*data);
        BacktrackStory story = tellSample(layout, data->families.at(family), t.at(0), source.settings.seed,
                                          sample, source.settings.halveRootBranches);
        if (!(story.reconciliation == expected))
            throw std::runtime_error(
                QObject::tr("this sample was not drawn at the current rates and seed, so its draws cannot be "
                            "retold: press Sample, then Tell")
                    .toStdString());
        out.story = std::move(story);
    } catch (const std::exception& e) {
        out.error = QString::fromStdString(e.what());
    }
    return out;
}

BacktrackPanel::BacktrackPanel(QWidget* parent) : QWidget(parent) {
    tell_ = new QPushButton(tr("Tell"));
    tell_->setObjectName("tellStory");
    tell_->setAccessibleName(tr("Tell the drawn sample's story"));
    tell_->setToolTip(tr("Retell how the backtracking drew the reconciliation on show, draw by draw"));
    StepTexts texts;
    texts.prefix = "story";
    texts.first = tr("First draw");
    texts.firstTip = tr("Back to the origination (Home)");
    texts.back = tr("Previous draw");
    texts.backTip = tr("One draw back (Left arrow)");
    texts.play = tr("Play the story");
    texts.pause = tr("Pause the story");
    texts.playTip = tr("Walk through the draws that built this reconciliation (Space)");
    texts.forward = tr("Next draw");
    texts.forwardTip = tr("One draw forward (Right arrow)");
    texts.last = tr("Last draw");
    texts.lastTip = tr("To the whole reconciliation (End)");
    texts.slider = tr("Story step");
    texts.sliderTip = tr("Drag to any draw of the story");
    texts.status = tr("Story step status");
    controls_ = new StepControls(texts);
    caption_ = new ElidingLabel; // one line: the table below needs the height (whole text in the tooltip)
    caption_->setObjectName("storyCaption");
    caption_->setAccessibleDescription(tr("Story step"));
    caption_->setTextFormat(Qt::PlainText);
    alternatives_ = new QTableWidget(0, 3);
    alternatives_->setObjectName("storyAlternatives");
    alternatives_->setAccessibleName(tr("Alternatives of the draw"));
    alternatives_->setHorizontalHeaderLabels({tr("Draw"), tr("Probability"), tr("Outcome")});
    alternatives_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    alternatives_->setSelectionMode(QAbstractItemView::NoSelection);
    alternatives_->verticalHeader()->hide();
    alternatives_->verticalHeader()->setDefaultSectionSize(alternatives_->fontMetrics().height() + 6);
    alternatives_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    alternatives_->horizontalHeader()->setStretchLastSection(true);

    auto* top = new QHBoxLayout;
    top->addWidget(tell_);
    top->addWidget(controls_, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(top);
    layout->addWidget(caption_);
    layout->addWidget(alternatives_, 1);

    connect(tell_, &QPushButton::clicked, this, &BacktrackPanel::tell);
    connect(controls_, &StepControls::stepChanged, this, &BacktrackPanel::showStep);
    connect(&watcher_, &QFutureWatcher<StoryOutcome>::finished, this, [this] {
        StoryOutcome out = watcher_.result();
        tell_->setEnabled(canTell());
        if (out.family != family_ || out.sample != index_) return; // another sample is on show now
        if (!out.story) {
            endStory(tr("Cannot tell this story: %1").arg(out.error));
            return;
        }
        story_ = std::move(out.story);
        emit logMessage(tr("Story of sample %1 of %2: %3 draws")
                            .arg(index_ + 1)
                            .arg(QString::fromStdString(data_->families[family_].name))
                            .arg(story_->steps.size()));
        controls_->setStepCount(static_cast<int>(story_->steps.size()));
        controls_->setStep(0);
    });
    setSample(-1, -1, nullptr, {});
}

std::vector<std::pair<QString, QString>> BacktrackPanel::keyHelp() {
    return StepControls::keyHelp(tr("the story"), tr("draw"));
}

void BacktrackPanel::setDataset(std::shared_ptr<const Dataset> data, FamilyTablesSource tables) {
    data_ = std::move(data);
    tables_ = std::move(tables);
    setSample(-1, -1, nullptr, {});
}

void BacktrackPanel::setSample(int family, int index, const Reconciliation* sample, SamplingSource source,
                               const QString& why) {
    const bool same =
        story_ && family == family_ && index == index_ && sample && *sample == story_->reconciliation;
    family_ = family;
    index_ = index;
    sample_ = data_ && family >= 0 ? sample : nullptr;
    source_ = std::move(source);
    tell_->setEnabled(canTell() && !watcher_.isRunning());
    if (same) {
        emit progressChanged(progressAt(controls_->step())); // the drawing was redone
        return;
    }
    const QString name = sample_ ? QString::fromStdString(data_->families[family].name) : QString();
    if (!sample_)
        endStory(why.isEmpty() ? tr("Sample a family and show one of its samples to tell its story.") : why);
    else if (!canTell())
        endStory(tr("With %1 speciation categories each sample first draws its category from the family's "
                    "posterior, then its events in that category; the story retells the draws of a model "
                    "of one category only.")
                     .arg(data_->speciationCategories));
    else
        endStory(
            tr("Tell: how the backtracking drew sample %1 of %2, draw by draw.").arg(index + 1).arg(name));
}

bool BacktrackPanel::canTell() const {
    return sample_ && data_->speciationCategories < 2;
}

void BacktrackPanel::tell() {
    if (!canTell() || watcher_.isRunning()) return;
    tell_->setEnabled(false);
    caption_->setText(tr("Retelling sample %1…").arg(index_ + 1));
    watcher_.setFuture(QtConcurrent::run(tellStory, data_, tables_, source_, family_, index_, *sample_));
}

void BacktrackPanel::endStory(const QString& message) {
    const bool had = story_.has_value();
    story_.reset();
    controls_->setStepCount(0);
    controls_->setStatus(tr("No story told"));
    alternatives_->setRowCount(0);
    caption_->setText(message);
    if (had) emit progressChanged(std::nullopt);
}

ReconciliationView::StoryProgress BacktrackPanel::progressAt(int step) const {
    ReconciliationView::StoryProgress p;
    if (!story_) return p;
    const Reconciliation& r = story_->reconciliation;
    p.told.resize(r.nodes.size());
    for (std::size_t n = 0; n < r.nodes.size(); ++n)
        p.told[n].assign(r.nodes[n].events.size(), 0);
    for (int i = 0; i <= step && i < static_cast<int>(story_->steps.size()); ++i) {
        const StoryStep& s = story_->steps[i];
        if (s.event < 0) continue;
        // An event with a recipient is told once its recipient is drawn too.
        const bool recipientNext = s.draw == StoryDraw::Event &&
                                   i + 1 < static_cast<int>(story_->steps.size()) &&
                                   story_->steps[i + 1].draw == StoryDraw::Recipient;
        if (!recipientNext || i + 1 <= step) p.told[s.node][s.event] = 1;
        if (i == step) {
            p.node = s.node;
            p.event = s.event;
        }
    }
    return p;
}

QString BacktrackPanel::outcomeText(const StoryStep& step, const StoryAlternative& a) const {
    const SpeciesTree& tree = data_->species;
    const CladeSet& cs = data_->families[family_].clades;
    auto species = [&](int e) { return QString::fromStdString(tree.name(e)); };
    if (step.draw == StoryDraw::Origin) return tr("the family starts in %1").arg(species(a.species));
    if (step.draw == StoryDraw::Recipient)
        return tr("%1 received by %2").arg(cladeLabel(cs, step.clade), species(a.species));
    const int e = step.species;
    const CladeSplit* sp = a.split >= 0 ? &cs.splits[a.split] : nullptr;
    switch (a.event) {
    case EventType::Leaf:
        return tr("observed: gene %1 of %2").arg(cladeLabel(cs, step.clade), species(e));
    case EventType::Speciation: {
        const int toLeft = a.swapped ? sp->right : sp->left, toRight = a.swapped ? sp->left : sp->right;
        return tr("S: %1 to %2, %3 to %4")
            .arg(cladeLabel(cs, toLeft), species(tree.left(e)), cladeLabel(cs, toRight),
                 species(tree.right(e)));
    }
    case EventType::Duplication:
        return tr("D: %1 and %2 both in %3")
            .arg(cladeLabel(cs, sp->left), cladeLabel(cs, sp->right), species(e));
    case EventType::Transfer: {
        const int stays = a.swapped ? sp->right : sp->left, leaves = a.swapped ? sp->left : sp->right;
        return tr("T: %1 kept in %2, %3 transferred")
            .arg(cladeLabel(cs, stays), species(e), cladeLabel(cs, leaves));
    }
    case EventType::SpeciationLoss: {
        const int other = a.species == tree.left(e) ? tree.right(e) : tree.left(e);
        return tr("SL: continues in %1, the copy in %2 is lost").arg(species(a.species), species(other));
    }
    case EventType::TransferLoss:
        return tr("TL: transferred away, the copy in %1 is lost").arg(species(e));
    case EventType::Loss:
        break;
    }
    return QString::fromStdString(eventName(a.event));
}

QString BacktrackPanel::caption() const {
    return caption_->text();
}

void BacktrackPanel::showStep(int step) {
    if (!story_ || step < 0) {
        alternatives_->setRowCount(0);
        if (story_) emit progressChanged(progressAt(-1));
        return;
    }
    const StoryStep& s = story_->steps.at(step);
    const int total = static_cast<int>(story_->steps.size());
    const CladeSet& cs = data_->families[family_].clades;
    const QString where =
        s.draw == StoryDraw::Origin
            ? tr("the root lineage %1").arg(cladeLabel(cs, s.clade))
            : tr("%1 in %2")
                  .arg(cladeLabel(cs, s.clade), QString::fromStdString(data_->species.name(s.species)));
    controls_->setStatus(tr("Draw %1 of %2 · %3").arg(step + 1).arg(total).arg(drawTitle(s.draw).toLower()));
    QString text =
        tr("%1 of %2: %3 (probability %4 among %5).")
            .arg(drawTitle(s.draw), where, outcomeText(s, s.outcome()))
            .arg(probabilityText(s.outcome().probability))
            .arg(s.alternatives.size() == 1 ? tr("1 outcome") : tr("%1 outcomes").arg(s.alternatives.size()));
    if (s.draw == StoryDraw::Event)
        text += tr(
            " DL, and TL with the transferred copy lost, leave the lineage where it is and are not drawn.");
    if (step + 1 == total) text += tr(" The reconciled gene tree is complete.");
    caption_->setText(text);

    // Alternatives by probability, the one drawn marked; a long tail in one row.
    std::vector<int> order(s.alternatives.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        return s.alternatives[a].probability > s.alternatives[b].probability;
    });
    const int shown = std::min<int>(static_cast<int>(order.size()), kMaxAlternativeRows);
    const bool chosenHidden =
        std::find(order.begin(), order.begin() + shown, s.chosen) == order.begin() + shown;
    const int rows = shown;
    if (chosenHidden) order[shown - 1] = s.chosen; // the drawn one replaces the last row
    const bool tail = static_cast<int>(order.size()) > shown;
    alternatives_->setRowCount(rows + (tail ? 1 : 0));
    double rest = 1.0;
    for (int row = 0; row < rows; ++row) {
        const StoryAlternative& a = s.alternatives[order[row]];
        rest -= a.probability;
        const bool drawn = order[row] == s.chosen;
        const QStringList cells = {drawn ? tr("▶ drawn") : QString(), probabilityText(a.probability),
                                   outcomeText(s, a)};
        for (int c = 0; c < 3; ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            item->setToolTip(cells[c]);
            if (drawn) {
                QFont bold = item->font();
                bold.setBold(true);
                item->setFont(bold);
            }
            alternatives_->setItem(row, c, item);
        }
    }
    if (tail) {
        alternatives_->setItem(rows, 0, new QTableWidgetItem);
        alternatives_->setItem(rows, 1, new QTableWidgetItem(probabilityText(std::max(0.0, rest))));
        alternatives_->setItem(
            rows, 2,
            new QTableWidgetItem(
                tr("%1 more alternatives").arg(order.size() - static_cast<std::size_t>(rows))));
    }
    emit progressChanged(progressAt(step));
    emit cellShown(family_, s.clade, s.species);
}

} // namespace gpurec::ui
