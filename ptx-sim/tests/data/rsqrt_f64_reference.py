# Reference for ptx-sim/tests/rsqrt_f64.rs: x and 1/sqrt(x) correctly rounded to f64, computed
# with Python's decimal module at 80 digits (float(Decimal) rounds correctly).
import random, struct
from decimal import Decimal, getcontext
getcontext().prec = 80
def bits(v): return struct.unpack("<Q", struct.pack("<d", v))[0]
def of(b): return struct.unpack("<d", struct.pack("<Q", b))[0]
random.seed(23)
xs = [0.27306211820139076, 1.0, 2.0, 0.5, 4.0, 3.0, 5e-324, 2.2250738585072014e-308, 2.225073858507201e-308, 1.7976931348623157e308, 1e-300, 1e300]
while len(xs) < 600:
    k = random.random()
    if k < 0.5:
        xs.append(random.uniform(0.1, 100.0))
    elif k < 0.9:
        xs.append(of(random.randrange(1, 0x7ff0000000000000)))
    else:
        xs.append(of(random.randrange(1, 1 << 52)))  # subnormal
print("# x_bits y_bits: y = 1/sqrt(x) correctly rounded to f64 (made by rsqrt_f64_reference.py)")
for x in xs:
    y = float(Decimal(1) / Decimal(x).sqrt())
    print(f"{bits(x):016x} {bits(y):016x}")
