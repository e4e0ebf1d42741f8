// ExperimentDialog: sets up a comparison of one workload (an experiment, engine/experiment/experiment.h) before it
// runs: which axes vary (host memory kind, copy API, streams, issue order, chunks, transfer size) and
// their values, and the repetitions. It starts from the workload's own comparison ("compare" in the
// file: the lesson's axes), checks everything as `streamscope-cli compare --vary` would, and shows the
// grid's size or the problem in place while the user types. The run itself goes through
// RunController::startComparison.
#pragma once

#include <QDialog>
#include <QString>
#include <QStringList>

#include <array>
#include <string>

#include "engine/experiment/comparison_file.h"

class QCheckBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace streamscope::ui {

class ExperimentDialog : public QDialog {
    Q_OBJECT
public:
    // workloadText: the workload as the editor holds it (JSON); fileName names it in messages.
    ExperimentDialog(const QString &workloadText, const QString &fileName, QWidget *parent = nullptr);

    static constexpr int kAxisCount = int(engine::Axis::Pdl) + 1; // every axis has its row
    // The axes in the order the dialog lists them (and the order --vary options are given).
    static const std::array<engine::Axis, kAxisCount> &axes();

    // The checked axes as --vary options ("streams=1,2,4"), in the order the workload's "compare" gave
    // them first, then the dialog's order.
    QStringList varyOptions() const;
    int repetitions() const; // -1: each variant's workload decides
    int warmup() const; // -1: each variant's workload decides
    int variantCount() const { return m_variantCount; }
    // Empty when the grid can run; else what is wrong and where (the axis, the value).
    QString problem() const { return m_problem; }
    bool canRun() const { return m_problem.isEmpty(); }

    // Checks an axis and sets its values ("1, 2, 4"), as the user would.
    void setAxis(engine::Axis axis, bool enabled, const QString &values);
    bool axisEnabled(engine::Axis axis) const;
    bool axisAvailable(engine::Axis axis) const; // false: this workload has nothing the axis could change
    QString axisValues(engine::Axis axis) const;
    void setRepetitions(int repetitions); // -1 or 1..1000
    void setWarmup(int warmup); // -1 or 0..100

private:
    struct Row {
        QCheckBox *check = nullptr;
        QLineEdit *values = nullptr;
        QLabel *hint = nullptr;
        bool available = true;
    };
    int rowOf(engine::Axis axis) const;
    void revalidate();

    std::string m_workloadText;
    std::string m_fileName;
    int m_workloadRepetitions = 0;
    QStringList m_ownOrder; // the axes of the workload's "compare", in its order
    std::array<Row, kAxisCount> m_rows;
    QSpinBox *m_repetitions = nullptr;
    QSpinBox *m_warmup = nullptr;
    QLabel *m_status = nullptr;
    QDialogButtonBox *m_buttons = nullptr;
    int m_variantCount = 0;
    QString m_problem;
};

} // namespace streamscope::ui
