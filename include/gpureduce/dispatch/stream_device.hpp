// The device a reduction runs on: its stream's. CUDA runs a kernel on the device of the stream it
// is launched on, whatever device is current (seen on two H200s: a launch on device 1's stream with
// device 0 current ran on device 1), so the pointer checks, the tuning and the workspace slot must
// be that device's too.
#pragma once

#include <gpureduce/error.hpp>

#include <cuda_runtime_api.h>

namespace gpureduce::detail {

// Devices this process sees (fixed for its life: CUDA_VISIBLE_DEVICES is read once).
inline int visible_devices() {
  static const int count = [] {
    int c = 0;
    if (cudaGetDeviceCount(&c) != cudaSuccess) cudaGetLastError();
    return c;
  }();
  return count;
}

// The device of `stream`. With one device it can only be the current one, and asking would cost
// every call 0.09-0.11 us of host time (cudaStreamIsCapturing and cudaStreamGetDevice; host_cost
// probe on two H200s, of 3.9-5.2 us per call). The legacy and per-thread default streams belong to
// the current device. A stream being captured refuses cudaStreamGetDevice, and the refusal ends
// its capture: it is taken to belong to the current device (capture on a stream of the current
// device). Before CUDA 12.8 (no cudaStreamGetDevice) every stream is taken to belong to it.
inline Status stream_device(cudaStream_t stream, int current, int* device) {
  *device = current;
#if CUDART_VERSION >= 12080
  if (visible_devices() < 2 || stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread)
    return Status::ok();
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (const cudaError_t e = cudaStreamIsCapturing(stream, &capture); e != cudaSuccess) return Status::from_cuda(e);
  if (capture != cudaStreamCaptureStatusNone) return Status::ok();
  if (const cudaError_t e = cudaStreamGetDevice(stream, device); e != cudaSuccess) return Status::from_cuda(e);
#endif
  return Status::ok();
}

// Makes the stream's device current for a call and gives the caller's back at the end of it.
class StreamDeviceScope {
 public:
  StreamDeviceScope() = default;
  ~StreamDeviceScope() {
    if (caller_ != device_) cudaSetDevice(caller_);
  }
  StreamDeviceScope(const StreamDeviceScope&) = delete;
  StreamDeviceScope& operator=(const StreamDeviceScope&) = delete;

  Status enter(cudaStream_t stream) {
    if (const cudaError_t e = cudaGetDevice(&caller_); e != cudaSuccess) return Status::from_cuda(e);
    int device = caller_;
    if (const Status s = stream_device(stream, caller_, &device); !s) return s;
    if (device != caller_)
      if (const cudaError_t e = cudaSetDevice(device); e != cudaSuccess) return Status::from_cuda(e);
    device_ = device;
    return Status::ok();
  }
  int device() const { return device_; }

 private:
  int caller_ = 0, device_ = 0;  // equal until a switch, so the destructor restores only then
};

}  // namespace gpureduce::detail
