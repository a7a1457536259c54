/* Reproductions of Oclgrind 21.10's --uninitialized bugs that test_oclgrind works around
 * (tests/oclgrind_shim.c; docs/opencl.md, "Oclgrind"). A buffer of four words is written on
 * the device by a kernel, then:
 *   oclgrind --uninitialized oclgrind_bugs 0   nothing more: no report (the control)
 *   oclgrind --uninitialized oclgrind_bugs 1   word 0 written again by clEnqueueWriteBuffer:
 *                                              words 1-3 are reported uninitialised
 *   oclgrind --uninitialized oclgrind_bugs 2   all four filled by clEnqueueFillBuffer: all four
 *   oclgrind --uninitialized oclgrind_bugs 3   word 0 copied in from another buffer: words 1-3
 * and a buffer never written but for word 1, by clEnqueueFillBuffer:
 *   oclgrind --uninitialized oclgrind_bugs 4   words 0, 2 and 3 must be reported, word 1 not
 * A kernel then reads every word: a report is Oclgrind's "Uninitialized value written". */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

static const char *source =
    "__kernel void init(__global uint *b) { b[get_global_id(0)] = 7u; }\n"
    "__kernel void use(__global const uint *b, __global uint *out) {\n"
    "  uint i = get_global_id(0);\n"
    "  out[i] = b[i] == 7u ? 1u : 2u;\n"
    "}\n";

static void check(cl_int rc, const char *what) {
  if (rc == CL_SUCCESS) return;
  fprintf(stderr, "oclgrind_bugs: %s: error %d\n", what, rc);
  exit(1);
}

int main(int argc, char **argv) {
  int mode = argc > 1 ? atoi(argv[1]) : 0;
  cl_platform_id platform;
  cl_device_id device;
  cl_int rc;
  check(clGetPlatformIDs(1, &platform, NULL), "clGetPlatformIDs");
  check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL), "clGetDeviceIDs");
  cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &rc);
  check(rc, "clCreateContext");
  cl_command_queue queue = clCreateCommandQueue(context, device, 0, &rc);
  check(rc, "clCreateCommandQueue");
  cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &rc);
  check(rc, "clCreateProgramWithSource");
  check(clBuildProgram(program, 1, &device, "", NULL, NULL), "clBuildProgram");
  cl_kernel init = clCreateKernel(program, "init", &rc), use = clCreateKernel(program, "use", &rc);
  check(rc, "clCreateKernel");
  cl_mem b = clCreateBuffer(context, CL_MEM_READ_WRITE, 16, NULL, &rc);
  cl_mem other = clCreateBuffer(context, CL_MEM_READ_WRITE, 4, NULL, &rc);
  cl_mem out = clCreateBuffer(context, CL_MEM_READ_WRITE, 16, NULL, &rc);
  check(rc, "clCreateBuffer");
  size_t four = 4;
  cl_uint seven = 7u;
  check(clSetKernelArg(init, 0, sizeof b, &b), "clSetKernelArg");
  if (mode != 4) check(clEnqueueNDRangeKernel(queue, init, 1, NULL, &four, NULL, 0, NULL, NULL), "init");
  if (mode == 1) check(clEnqueueWriteBuffer(queue, b, CL_TRUE, 0, 4, &seven, 0, NULL, NULL), "write");
  if (mode == 2) check(clEnqueueFillBuffer(queue, b, &seven, 4, 0, 16, 0, NULL, NULL), "fill");
  if (mode == 3) {
    check(clEnqueueWriteBuffer(queue, other, CL_TRUE, 0, 4, &seven, 0, NULL, NULL), "write");
    check(clEnqueueCopyBuffer(queue, other, b, 0, 0, 4, 0, NULL, NULL), "copy");
  }
  if (mode == 4) check(clEnqueueFillBuffer(queue, b, &seven, 4, 4, 4, 0, NULL, NULL), "fill");
  check(clSetKernelArg(use, 0, sizeof b, &b), "clSetKernelArg");
  check(clSetKernelArg(use, 1, sizeof out, &out), "clSetKernelArg");
  check(clEnqueueNDRangeKernel(queue, use, 1, NULL, &four, NULL, 0, NULL, NULL), "use");
  check(clFinish(queue), "clFinish");
  printf("oclgrind_bugs %d: done\n", mode);
  return 0;
}
