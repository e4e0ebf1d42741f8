// NsightCompareView: a StreamScope trace beside the Nsight Systems capture of the same run. Two
// timelines of the same repetition, one above the other, with synchronised zoom and pan: the Nsight one
// is shifted so that both repetitions' first GPU starts line up (the alignment engine::compareWithNsight
// measures starts from). Below them the per-kind and overall summary of |duration| and |start| deltas,
// the per-op table (engine::compareWithNsight) and a line on why CUDA-event timing differs from Nsight's
// hardware timestamps (docs/nsight.md).
#pragma once

#include <QString>
#include <QWidget>

#include <memory>

#include "engine/analysis/nsight_compare.h"
#include "engine/model/trace.h"

class QLabel;
class QSpinBox;
class QTableView;

namespace streamscope::ui {

class DiffView;
class NsightSummaryModel;
class OpDeltaModel;
class TimelineView;
class ZoomControl;

class NsightCompareView : public QWidget {
    Q_OBJECT

public:
    explicit NsightCompareView(QWidget *parent = nullptr);
    ~NsightCompareView() override;

    // Loads both files through engine::loadTrace (nsightPath: the `nsys export --type sqlite` file)
    // and compares them. On failure the view keeps what it showed and error says what went wrong.
    bool openFiles(const QString &ownPath, const QString &nsightPath, QString *error = nullptr);
    // Compares traces already in memory; false (with the engine's message) when they cannot be paired.
    bool setTraces(std::shared_ptr<const engine::Trace> own, std::shared_ptr<const engine::Trace> nsight,
                   const QString &ownName, const QString &nsightName, QString *error = nullptr);

    // Selects, in both timelines, the shown repetition's instance of the op slot `row` of deltaModel()
    // (a click in the table does the same); returns whether both sides were found.
    bool selectSlot(int row);

    // Shows repetition `repetition` of the StreamScope trace and its Nsight partner.
    void setRepetition(int repetition);
    int repetition() const { return m_repetition; }
    // The Nsight repetition paired with the shown one (same Repetition::index, else same position).
    int nsightRepetition() const { return m_nsightRepetition; }
    // Nsight time minus StreamScope time for the same point of the shown repetition, in each view's own
    // coordinates (ns from its LaneModel origin): nsightWindow = ownWindow + alignmentOffsetNs().
    qint64 alignmentOffsetNs() const { return m_offsetNs; }

    const engine::NsightComparison &comparison() const { return m_comparison; }
    TimelineView *ownTimeline() const { return m_ownTimeline; }
    TimelineView *nsightTimeline() const { return m_nsightTimeline; }
    // The per-kind summary and per-op tables: the DiffView every two-trace comparison uses.
    DiffView *deltaView() const { return m_deltas; }
    OpDeltaModel *deltaModel() const;
    NsightSummaryModel *summaryModel() const;
    QTableView *deltaTable() const;
    QString headline() const;

private:
    void updateAlignment();

    std::shared_ptr<const engine::Trace> m_own;
    std::shared_ptr<const engine::Trace> m_nsight;
    engine::NsightComparison m_comparison;
    int m_repetition = 0;
    int m_nsightRepetition = 0;
    qint64 m_offsetNs = 0;
    ZoomControl *m_zoom = nullptr; // child QObject: the one zoom both timelines follow

    QLabel *m_headline = nullptr;
    QLabel *m_ownTitle = nullptr;
    QLabel *m_nsightTitle = nullptr;
    QSpinBox *m_repetitionBox = nullptr;
    TimelineView *m_ownTimeline = nullptr;
    TimelineView *m_nsightTimeline = nullptr;
    DiffView *m_deltas = nullptr;
};

} // namespace streamscope::ui
