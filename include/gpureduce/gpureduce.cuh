// Everything: #include <gpureduce/gpureduce.cuh> (nvcc). The layers, bottom up: thread/ (operators,
// accumulators), warp/, block/, agent/ (one thread's share of the input), kernel/, dispatch/
// (launch plan, tuning, workspace), and the public calls in reduce.cuh.
#pragma once

#include <gpureduce/reduce.cuh>
