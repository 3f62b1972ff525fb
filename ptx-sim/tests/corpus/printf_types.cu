extern "C" __global__ void print_types(float f, double d, long long l) {
    if (threadIdx.x == 0)
        printf("%d|%u|%lld|%f|%.3e|%s|%c|%#x|%5.1f|%g\n", -7, 3000000000u, l, f, d, "str", 'Z', 255, f, d);
}
