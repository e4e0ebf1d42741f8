// LessonsPanel: the bundled presets and lessons (resources/workloads/*.json), and the example trace
// recorded on a real GPU for each (resources/examples/NAME.sstrace) when there is one. One click on a
// lesson opens it (lessonActivated: the window shows its last run or its example, with the explanation
// beside the timeline, the one place it is shown); the buttons load the workload into the editor, show
// the example, or run or show its comparison.
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>

#include <vector>

#include "engine/workload/workload.h"

class QLabel;
class QListWidget;
class QPushButton;

namespace streamscope::ui {

struct Lesson {
    QString name; // the workload's "name"
    QString description; // the workload's "description": what to look for
    engine::KeyFigure keyFigure; // the workload's "keyFigure": the one figure to look at
    QString workloadPath;
    QString examplePath; // empty when no example trace was recorded for it
    QStringList compare; // the lesson's comparison: the workload's "compare" (--vary options)
    QString comparisonPath; // examples/comparisons/<name>.sscompare, recorded on a real GPU; may be empty
    QString error; // why the file could not be read, shown instead of the description
    int gpusNeeded = 1; // the GPUs its workload names (a version 2 lesson may need two)
};

class LessonsPanel : public QWidget {
    Q_OBJECT
public:
    explicit LessonsPanel(QWidget *parent = nullptr);

    // Reads every *.json of workloadsDir (sorted by file name) and pairs it with
    // examplesDir/<basename>.sstrace. Either folder may be missing.
    void load(const QString &workloadsDir, const QString &examplesDir);
    const std::vector<Lesson> &lessons() const { return m_lessons; }
    int currentLesson() const;
    void setCurrentLesson(int index); // -1: none (its buttons are disabled)
    // The lesson whose workload or example is this file, or -1.
    int lessonForPath(const QString &path) const;

    static Lesson readLesson(const QString &workloadPath, const QString &examplesDir);
    // What keeps lesson `index` from opening or from running here (its file's error, or the GPUs it needs
    // and whether a recording is bundled); empty when nothing does. Shown in its item (a second line and
    // the tooltip), never under the list, so that a click never moves the list.
    QString note(int index) const;

signals:
    // A click (or Enter) on a lesson: open it.
    void lessonActivated(int index);
    void workloadOpenRequested(const QString &path);
    void exampleOpenRequested(const QString &path);
    // Run the lesson's comparison (the workload at path, with its "compare" axes) on this machine's GPU.
    void compareRequested(const QString &workloadPath);
    void comparisonOpenRequested(const QString &path);

public:
    // Whether workloads can run here (a usable GPU): the Compare button is enabled only then.
    void setCanRun(bool canRun);
    // The GPUs this machine has (from the device check; < 0 unknown): a lesson that needs more says so,
    // and offers its recorded example instead of a run.
    void setGpuCount(int count);

private:
    void showCurrent();
    void updateItems();
    bool needsMoreGpus(const Lesson &lesson) const;

    std::vector<Lesson> m_lessons;
    QListWidget *m_list;
    QLabel *m_status; // that there are no lessons
    QPushButton *m_openWorkload;
    QPushButton *m_openExample;
    QPushButton *m_compare;
    QPushButton *m_openComparison;
    bool m_canRun = true;
    int m_gpuCount = -1;
};

} // namespace streamscope::ui
