"""Writes the NumPy fixtures that src/literal/npy.rs and tests/cli.rs read: files as NumPy itself
(numpy 2.4.6, ml_dtypes 0.6.0, the pins in backends/xla/requirements.txt) saves them, including
the cases a hand-made file would miss (Fortran order, big-endian, bfloat16 as '<V2', a compressed
archive, numpy.savez's positional names). Run from this directory with the XLA adapter's venv:

    ../../../target/xla-venv/bin/python gen.py
"""
import numpy as np
import ml_dtypes

x = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32)
y = np.array([10, 20, 30], dtype=np.float32)
np.save("x_f32.npy", x)
np.save("x_f32_fortran.npy", np.asfortranarray(x))
np.save("b_bf16.npy", np.array([1.5, -2, np.inf, 0.0078125], dtype=ml_dtypes.bfloat16))
np.save("h_f16.npy", np.array([1.5, -2, np.inf, 6e-8], dtype=np.float16))
np.save("c_c64.npy", np.array([1 + 2j, -0.5j], dtype=np.complex64))
np.save("p_pred.npy", np.array([True, False, True]))
np.save("i_s64_be.npy", np.array([1, -2, 2**40], dtype=">i8"))
np.save("u_u8.npy", np.array([[0, 255]], dtype=np.uint8))
np.save("s_scalar_f64.npy", np.float64(2.5))
np.savez("args.npz", x=x, y=y)
np.savez("args_positional.npz", x, y)
np.savez_compressed("args_compressed.npz", arg0=x, arg1=y)
