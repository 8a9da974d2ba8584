// The axis planner (dispatch/axis_plan.hpp): dimension merging, the kernel each shape gets, the
// spans it reads and writes, and the errors it names.
#include <gpureduce/dispatch/axis_plan.hpp>

#include <gtest/gtest.h>

#include <string>

namespace gpureduce::detail {
namespace {

AxisPlan plan(const Shape& s, const Axes& a, bool ordered = false, const Shape* out = nullptr) {
  AxisPlan p;
  const Status st = plan_axes(s, a, out, ordered, &p);
  EXPECT_TRUE(bool(st)) << st.message;
  return p;
}

std::string error(const Shape& s, const Axes& a, const Shape* out = nullptr) {
  AxisPlan p;
  const Status st = plan_axes(s, a, out, false, &p);
  EXPECT_EQ(st.code, Errc::invalid_argument);
  return st.message;
}

TEST(AxisPlan, ContiguousLastAxesAreRows) {
  const AxisPlan p = plan(Shape{4, 5, 6}, {1, 2});
  EXPECT_EQ(p.kernel, AxisKernel::rows);
  EXPECT_EQ(p.outputs, 4u);
  EXPECT_EQ(p.length, 30u);
  ASSERT_EQ(p.kept.count, 1);
  EXPECT_EQ(p.kept.in[0], 30);
  EXPECT_EQ(p.kept.out[0], 1);
  EXPECT_EQ(p.in_hi, 119);
  EXPECT_EQ(p.out_hi, 3);
}

TEST(AxisPlan, OuterAxisIsColumnsAndKeptAxesMerge) {
  const AxisPlan p = plan(Shape{2, 3, 4, 5}, {1});
  EXPECT_EQ(p.kernel, AxisKernel::columns);
  EXPECT_EQ(p.inner, 20);  // axes 2 and 3 merged: contiguous in the input and the result
  EXPECT_EQ(p.row_stride, 20);
  EXPECT_EQ(p.length, 3u);
  ASSERT_EQ(p.kept.count, 1);
  EXPECT_EQ(p.kept.extents[0], 2);
  EXPECT_EQ(p.kept.in[0], 60);
  EXPECT_EQ(p.kept.out[0], 20);
}

TEST(AxisPlan, EveryAxisOfContiguousArrayIsOneRow) {
  const AxisPlan p = plan(Shape{7, 9}, {0, 1});
  EXPECT_EQ(p.kernel, AxisKernel::rows);
  EXPECT_EQ(p.outputs, 1u);
  EXPECT_EQ(p.length, 63u);
  EXPECT_EQ(p.kept.count, 0);
}

TEST(AxisPlan, SizeOneDimensionsDrop) {
  const AxisPlan p = plan(Shape{{1, 8, 1, 3}, {1000, 3, 77, 1}}, {0, 3});
  EXPECT_EQ(p.kernel, AxisKernel::rows);
  EXPECT_EQ(p.outputs, 8u);
  EXPECT_EQ(p.length, 3u);
}

TEST(AxisPlan, NegativeStridesFlipUnlessOrdered) {
  const AxisPlan p = plan(Shape{{10, 4}, {-4, -1}}, {1});
  EXPECT_EQ(p.kernel, AxisKernel::rows);
  EXPECT_EQ(p.base, -3);
  EXPECT_EQ(p.in_lo, -39);
  EXPECT_EQ(p.in_hi, 0);
  EXPECT_EQ(plan(Shape{{10, 4}, {-4, -1}}, {1}, true).kernel, AxisKernel::general);
}

TEST(AxisPlan, UnmergeableReducedAxesAreGeneral) {
  const AxisPlan p = plan(Shape{4, 5, 6}, {0, 2});
  EXPECT_EQ(p.kernel, AxisKernel::general);
  ASSERT_EQ(p.reduced.count, 2);
  EXPECT_EQ(p.reduced.in[0], 30);
  EXPECT_EQ(p.reduced.in[1], 1);
}

TEST(AxisPlan, ReducedAxesSortedByStrideMerge) {
  // A transposed matrix reduced whole: both axes merge into one contiguous run.
  const AxisPlan p = plan(Shape{{5, 7}, {1, 5}}, {0, 1});
  EXPECT_EQ(p.kernel, AxisKernel::rows);
  EXPECT_EQ(p.length, 35u);
  // argmin/argmax keep the caller's order: no merge.
  EXPECT_EQ(plan(Shape{{5, 7}, {1, 5}}, {0, 1}, true).kernel, AxisKernel::general);
}

TEST(AxisPlan, EmptyExtents) {
  EXPECT_EQ(plan(Shape{0, 5}, {1}).kernel, AxisKernel::none);
  const AxisPlan p = plan(Shape{5, 0}, {1});
  EXPECT_EQ(p.kernel, AxisKernel::rows);
  EXPECT_EQ(p.length, 0u);
  EXPECT_EQ(p.outputs, 5u);
}

TEST(AxisPlan, ResultShapes) {
  const Shape keep{4, 1, 6};
  EXPECT_EQ(plan(Shape{4, 5, 6}, {1}, false, &keep).kernel, AxisKernel::columns);
  const Shape transposed{{4, 6}, {1, 4}};
  const AxisPlan t = plan(Shape{4, 5, 6}, {1}, false, &transposed);
  EXPECT_EQ(t.kernel, AxisKernel::general);  // the result's innermost axis is not contiguous
  EXPECT_EQ(t.out_hi, 23);
  const Shape wrong{4, 7};
  EXPECT_EQ(error(Shape{4, 5, 6}, {1}, &wrong), "result shape: an extent differs from the array's kept axis");
  const Shape wrong_keep{4, 2, 6};
  EXPECT_EQ(error(Shape{4, 5, 6}, {1}, &wrong_keep), "result shape: a reduced axis kept with an extent other than 1");
}

// The kernels' index map: kept index -> input and result offsets, here of a transposed result.
TEST(AxisPlan, DimsMapIndicesToOffsets) {
  const Shape transposed{{4, 6}, {1, 4}};
  const AxisPlan p = plan(Shape{4, 5, 6}, {1}, false, &transposed);
  for (std::uint64_t o = 0; o < 24; ++o) {
    std::int64_t in = -1, out = -1;
    p.kept.offsets(o, &in, &out);
    const std::int64_t i = std::int64_t(o / 6), k = std::int64_t(o % 6);
    EXPECT_EQ(in, i * 30 + k) << o;
    EXPECT_EQ(out, i + 4 * k) << o;
  }
  const AxisPlan rows = plan(Shape{{7, 3}, {5, 1}}, {1});
  std::int64_t in = -1, out = -1;
  rows.kept.offsets(6, &in, &out);
  EXPECT_EQ(in, 30);
  EXPECT_EQ(out, 6);
}

TEST(AxisPlan, ErrorsAreNamed) {
  EXPECT_EQ(error(Shape{4, 5}, {2}), "axis out of range for the array");
  EXPECT_EQ(error(Shape{4, 5}, {-3}), "axis out of range for the array");
  EXPECT_EQ(error(Shape{4, 5}, {0, -2}), "axes: the same axis twice");
  EXPECT_EQ(error(Shape{4, -5}, {0}), "array shape: a negative extent");
  EXPECT_EQ(error(Shape{{1, 2, 3, 4, 5, 6, 7, 8, 9}}, {0}),
            "array shape: more than 8 dimensions, or extents and strides of different lengths");
  EXPECT_EQ(error(Shape{{4, 5}, {1}}, {0}),
            "array shape: more than 8 dimensions, or extents and strides of different lengths");
  EXPECT_EQ(error(Shape{1 << 30, 1 << 30, 1 << 30}, {0}), "array shape: more than 2^63 - 1 elements");
}

}  // namespace
}  // namespace gpureduce::detail
