// Copyright 2026 The inflow Authors.

#include "progress.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace inflow::tools {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// A Progress writing into memory, on a clock the test moves.
class ProgressTest : public ::testing::Test {
 protected:
  ProgressTest() { out_ = open_memstream(&buf_, &size_); }
  ~ProgressTest() override {
    std::fclose(out_);
    std::free(buf_);
  }
  Progress::Options Options(Progress::Mode mode, int64_t total) {
    Progress::Options o;
    o.label = "train";
    o.total = total;
    o.out = out_;
    o.mode = mode;
    o.columns = 100;
    o.clock = [this] { return now_; };
    return o;
  }
  std::string Shown() {
    std::fflush(out_);
    return std::string(buf_, size_);
  }
  std::FILE* out_;
  char* buf_ = nullptr;
  size_t size_ = 0;
  double now_ = 1000;
};

TEST_F(ProgressTest, LinesComeEveryIntervalAndAtFinish) {
  Progress p(Options(Progress::Mode::kLines, 1000));
  p.Update(0);
  now_ += 5;
  p.Update(100);  // before the 10 s interval: nothing
  EXPECT_EQ(Shown(), "");
  now_ += 5;
  p.Update(200, "loss 0.5");
  EXPECT_EQ(Shown(), "train: 200/1000 (20%) 20 records/s ETA 40s loss 0.5\n");
  now_ += 1;
  p.Update(1000);
  p.Finish();
  EXPECT_THAT(Shown(), HasSubstr("\ntrain: 1000/1000 (100%) 91 records/s\n"));
  p.Finish();  // once only
  const std::string shown = Shown();
  EXPECT_EQ(std::count(shown.begin(), shown.end(), '\n'), 2);
}

TEST_F(ProgressTest, TerminalRedrawsOneLineInPlaceWithABar) {
  Progress::Options o = Options(Progress::Mode::kTerminal, 100);
  Progress p(o);
  p.Update(0);
  EXPECT_THAT(Shown(), StartsWith("\rtrain [.............................."));
  now_ += 0.05;
  p.Update(10);  // within the redraw interval: nothing new
  const size_t before = Shown().size();
  now_ += 0.2;
  p.Update(50);
  const std::string line = Shown().substr(before);
  EXPECT_THAT(line, StartsWith("\rtrain [###############...............]  "
                               "50/100  50%  200 records/s  ETA 0s"));
  p.Finish();
  const std::string shown = Shown();
  EXPECT_EQ(shown.back(), '\n');
  EXPECT_EQ(shown.find('\n'), shown.size() - 1) << "one line only";
}

TEST_F(ProgressTest, AShorterRedrawBlanksTheRestOfTheLongerOne) {
  Progress p(Options(Progress::Mode::kTerminal, 0));
  p.Update(0, "a long extra text here");
  now_ += 1;
  p.Update(1);
  const std::string shown = Shown();
  const size_t second = shown.rfind('\r');
  // "\r" + the second text, padded to the first's length.
  EXPECT_EQ(shown.size() - second, second);
  EXPECT_EQ(shown.back(), ' ');
}

TEST_F(ProgressTest, WithoutATotalThereIsNoBarPercentOrEta) {
  Progress p(Options(Progress::Mode::kLines, 0));
  p.Update(0);
  now_ += 10;
  p.Update(50);
  EXPECT_EQ(Shown(), "train: 50 5.00 records/s\n");
}

TEST_F(ProgressTest, RateCountsOnlyWorkSinceTheFirstUpdate) {
  Progress p(Options(Progress::Mode::kLines, 2000));
  p.Update(1000);  // e.g. a resumed run at step 1000
  now_ += 10;
  p.Update(1100);
  EXPECT_EQ(Shown(), "train: 1100/2000 (55%) 10 records/s ETA 1m30s\n");
}

TEST_F(ProgressTest, TheTerminalLineFitsTheColumns) {
  Progress::Options o = Options(Progress::Mode::kTerminal, 100);
  o.columns = 40;
  Progress p(o);
  EXPECT_LE(p.Text(5, now_ + 1, std::string(100, 'x')).size(), 39u);
}

TEST(ProgressFormatTest, DurationsReadAsHoursMinutesSeconds) {
  EXPECT_EQ(Progress::FormatDuration(42.4), "42s");
  EXPECT_EQ(Progress::FormatDuration(187), "3m07s");
  EXPECT_EQ(Progress::FormatDuration(3720), "1h02m");
  EXPECT_EQ(Progress::FormatDuration(-1), "?");
}

TEST(ProgressModeTest, AutoIsLinesForAFileThatIsNotATerminal) {
  std::FILE* f = std::tmpfile();
  Progress::Options o;
  o.out = f;
  Progress p(o);
  EXPECT_EQ(p.mode(), Progress::Mode::kLines);
  p.Finish();
  std::fclose(f);
}

}  // namespace
}  // namespace inflow::tools
