use super::*;
use crate::literal::parse::parse_literal;
use crate::shape::text::parse_shape;
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/npy")
        .join(name)
}

fn read_as(name: &str, shape: &str) -> Result<String> {
    let shape = parse_shape(shape).unwrap();
    let t = Target {
        index: 0,
        name: "x",
        shape: &shape,
    };
    read_npy(&fixture(name), &t).map(|l| l.to_string())
}

#[test]
fn numpy_files_read_as_their_parameters() {
    let cases = [
        ("x_f32.npy", "f32[2,3]", "f32[2,3] {{1, 2, 3}, {4, 5, 6}}"),
        (
            "x_f32_fortran.npy",
            "f32[2,3]",
            "f32[2,3] {{1, 2, 3}, {4, 5, 6}}",
        ),
        ("b_bf16.npy", "bf16[4]", "bf16[4] {1.5, -2, inf, 0.0078}"),
        ("h_f16.npy", "f16[4]", "f16[4] {1.5, -2, inf, 6e-8}"),
        ("c_c64.npy", "c64[2]", "c64[2] {(1, 2), (-0.0, -0.5)}"),
        ("p_pred.npy", "pred[3]", "pred[3] {true, false, true}"),
        ("i_s64_be.npy", "s64[3]", "s64[3] {1, -2, 1099511627776}"),
        ("u_u8.npy", "u8[1,2]", "u8[1,2] {{0, 255}}"),
        ("s_scalar_f64.npy", "f64[]", "f64[] 2.5"),
        // A bounded dynamic dimension takes any size up to its bound.
        ("p_pred.npy", "pred[<=5]", "pred[3] {true, false, true}"),
    ];
    for (file, shape, want) in cases {
        assert_eq!(read_as(file, shape).unwrap(), want, "{file} as {shape}");
    }
}

#[test]
fn a_file_that_is_not_the_parameter_is_refused_by_name() {
    let e = read_as("x_f32.npy", "f64[2,3]").unwrap_err().0;
    assert!(
        e.contains("x_f32.npy") && e.contains("'<f4'") && e.contains("<f8"),
        "{e}"
    );
    assert!(e.contains("parameter 0 (x: f64[2,3])"), "{e}");
    let e = read_as("x_f32.npy", "f32[3,2]").unwrap_err().0;
    assert!(e.contains("shape [2, 3]") && e.contains("[3, 2]"), "{e}");
    let e = read_as("b_bf16.npy", "f16[4]").unwrap_err().0;
    assert!(e.contains("'<V2'") && e.contains("float16"), "{e}");
    let e = read_as("h_f16.npy", "bf16[4]").unwrap_err().0;
    assert!(e.contains("ml_dtypes.bfloat16"), "{e}");
    let e = read_as("x_f32.npy", "(f32[2,3])").unwrap_err().0;
    assert!(e.contains("tuple"), "{e}");
    let e = read_as("no_such.npy", "f32[2]").unwrap_err().0;
    assert!(
        e.starts_with("cannot read") && e.contains("no_such.npy"),
        "{e}"
    );
}

#[test]
fn truncated_oversized_and_garbage_files_are_errors() {
    let dir = std::env::temp_dir().join(format!("xla-spec-npy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = std::fs::read(fixture("x_f32.npy")).unwrap();
    let shape = parse_shape("f32[2,3]").unwrap();
    let t = Target {
        index: 1,
        name: "w",
        shape: &shape,
    };
    let cut = dir.join("cut.npy");
    std::fs::write(&cut, &good[..good.len() - 3]).unwrap();
    let e = read_npy(&cut, &t).unwrap_err().0;
    assert!(e.contains("cut.npy"), "{e}");
    let long = dir.join("long.npy");
    std::fs::write(&long, [&good[..], &[0u8; 8]].concat()).unwrap();
    assert!(read_npy(&long, &t).unwrap_err().0.contains("long.npy"));
    let junk = dir.join("junk.npy");
    std::fs::write(&junk, b"not numpy at all").unwrap();
    let e = read_npy(&junk, &t).unwrap_err().0;
    assert!(e.contains("not a NumPy .npy array"), "{e}");
    // A header claiming 2^60 elements for a parameter that has 6: refused without reading
    // (or allocating) what the header claims.
    let text = String::from_utf8_lossy(&good).replace("(2, 3)", "(1152921504606846976,)");
    let huge = dir.join("huge.npy");
    std::fs::write(&huge, text.as_bytes()).unwrap();
    let big = parse_shape("f32[1152921504606846976]").unwrap();
    let tb = Target {
        index: 0,
        name: "big",
        shape: &big,
    };
    assert!(read_npy(&huge, &t).is_err());
    assert!(read_npy(&huge, &tb).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn archives_by_name_by_numpy_position_and_compressed() {
    let x = parse_shape("f32[2,3]").unwrap();
    let y = parse_shape("f32[3]").unwrap();
    let named = [
        Target {
            index: 0,
            name: "x",
            shape: &x,
        },
        Target {
            index: 1,
            name: "y",
            shape: &y,
        },
    ];
    for file in ["args.npz", "args_positional.npz", "args_compressed.npz"] {
        let got = read_npz_args(&fixture(file), &named).unwrap();
        assert_eq!(
            got[0].to_string(),
            "f32[2,3] {{1, 2, 3}, {4, 5, 6}}",
            "{file}"
        );
        assert_eq!(got[1].to_string(), "f32[3] {10, 20, 30}", "{file}");
    }
    let other = [
        Target {
            index: 0,
            name: "a",
            shape: &x,
        },
        Target {
            index: 1,
            name: "b",
            shape: &y,
        },
        Target {
            index: 2,
            name: "c",
            shape: &y,
        },
    ];
    let e = read_npz_args(&fixture("args.npz"), &other).unwrap_err().0;
    assert!(
        e.contains("no array for parameter 0 (a: f32[2,3])") && e.contains("x, y"),
        "{e}"
    );
    let e = read_npz_args(&fixture("x_f32.npy"), &named).unwrap_err().0;
    assert!(e.contains("not a NumPy .npz archive"), "{e}");
}

#[test]
fn every_element_type_round_trips_through_npy_and_npz() {
    let values = [
        "pred[2] {true, false}",
        "s8[2] {-128, 127}",
        "s16[2] {-32768, 7}",
        "s32[1,2] {{-1, 2147483647}}",
        "s64[2] {-9223372036854775808, 3}",
        "u8[2] {0, 255}",
        "u16[2] {0, 65535}",
        "u32[2] {0, 4294967295}",
        "u64[2] {0, 18446744073709551615}",
        "f16[2] {-0.0, 65504}",
        "bf16[2] {-inf, 3.3895314e+38}",
        "f32[2] {nan, 1e-45}",
        "f64[] -0.0",
        "c64[2] {(1, -2), (inf, 0)}",
        "c128[0] {}",
    ];
    let dir = std::env::temp_dir().join(format!("xla-spec-npz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let lits: Vec<Literal> = values.iter().map(|v| parse_literal(v).unwrap()).collect();
    let tuple = Literal::Tuple(lits.clone());
    let arrays = result_arrays(&tuple, "out");
    assert_eq!(arrays.len(), values.len());
    let npz = dir.join("all.npz");
    write_npz(&npz, &arrays).unwrap();
    let shapes: Vec<Shape> = lits.iter().map(|l| l.shape()).collect();
    let targets: Vec<Target> = (0..shapes.len())
        .map(|i| Target {
            index: i,
            name: "p",
            shape: &shapes[i],
        })
        .collect();
    // out<i> is not arg<i> or arr_<i>: the archive is read in its own order.
    let back = read_npz_args(&npz, &targets).unwrap();
    for (l, b) in lits.iter().zip(&back) {
        assert_eq!(l.to_string(), b.to_string());
        let one = dir.join("one.npy");
        write_npy(&one, l.as_array().unwrap()).unwrap();
        let s = l.shape();
        let t = Target {
            index: 0,
            name: "p",
            shape: &s,
        };
        assert_eq!(read_npy(&one, &t).unwrap().to_string(), l.to_string());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An image with the given version and header text (padded as NumPy pads it) and data.
fn image(major: u8, dict: &str, data: &[u8]) -> Vec<u8> {
    let prefix = if major == 1 { 10 } else { 12 };
    let len = (prefix + dict.len() + 1).next_multiple_of(64) - prefix;
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&[major, 0]);
    if major == 1 {
        out.extend_from_slice(&(len as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&(len as u32).to_le_bytes());
    }
    out.extend_from_slice(dict.as_bytes());
    out.resize(prefix + len - 1, b' ');
    out.push(b'\n');
    out.extend_from_slice(data);
    out
}

fn decode_as(bytes: &[u8], shape: &str) -> Result<String> {
    let shape = parse_shape(shape).unwrap();
    let t = Target {
        index: 0,
        name: "x",
        shape: &shape,
    };
    array_from_npy_bytes(bytes, "f.npy", &t).map(|a| Literal::Array(a).to_string())
}

#[test]
fn headers_of_every_version_and_python_spelling_parse() {
    let data: Vec<u8> = [1i16, -2, 3, 4, 5, 6]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let want = "s16[2,3] {{1, -2, 3}, {4, 5, 6}}";
    for (major, dict) in [
        (
            1,
            "{'descr': '<i2', 'fortran_order': False, 'shape': (2, 3), }",
        ),
        // Python 2's long integers, double quotes, no trailing comma, other key order.
        (
            1,
            "{\"shape\": (2L, 3L), \"fortran_order\": False, \"descr\": \"<i2\"}",
        ),
        (
            2,
            "{'descr': '<i2', 'fortran_order': False, 'shape': (2,3)}",
        ),
        (
            3,
            "{ 'descr' : '<i2' , 'fortran_order' : False , 'shape' : ( 2 , 3 , ) , }",
        ),
    ] {
        assert_eq!(
            decode_as(&image(major, dict, &data), "s16[2,3]").unwrap(),
            want,
            "{dict}"
        );
    }
    // Fortran order, three dimensions: element (i, j, l) at i + 2 * (j + 3 * l).
    let f: Vec<u8> = (0..24u8)
        .map(|x| {
            let (i, j, l) = (x % 2, x / 2 % 3, x / 6);
            i * 12 + j * 4 + l
        })
        .collect();
    let dict = "{'descr': '|u1', 'fortran_order': True, 'shape': (2, 3, 4), }";
    let got = decode_as(&image(1, dict, &f), "u8[2,3,4]").unwrap();
    let row_major: Vec<String> = (0..24).map(|x: u8| x.to_string()).collect();
    assert_eq!(
        got.split(|c: char| !c.is_ascii_digit())
            .filter(|s| !s.is_empty())
            .skip(4)
            .collect::<Vec<_>>(),
        row_major,
        "{got}"
    );
}

#[test]
fn malformed_headers_and_values_are_errors_that_say_what() {
    let two = [0u8; 4];
    let cases = [
        (
            image(1, "{'descr': '<i2', 'shape': (2,), }", &two),
            "no 'fortran_order'",
        ),
        (
            image(
                1,
                "{'descr': '<i2', 'fortran_order': 1, 'shape': (2,)}",
                &two,
            ),
            "'fortran_order' is 1",
        ),
        (
            image(
                1,
                "{'descr': '<i2', 'fortran_order': False, 'shape': [2]}",
                &two,
            ),
            "not a tuple",
        ),
        (
            image(
                1,
                "{'descr': '<i2', 'fortran_order': False, 'shape': (2,)",
                &two,
            ),
            "expected",
        ),
        (image(1, "('<i2', False)", &two), "not a dict"),
        (
            image(1, &format!("{}1{}", "[".repeat(40), "]".repeat(40)), &two),
            "nests too deeply",
        ),
        (
            image(
                1,
                "{'descr': '<i2', 'fortran_order': False, 'shape': (99999999999999999999,)}",
                &two,
            ),
            "too large",
        ),
        (image(4, "{}", &two), "version 4.0"),
        (b"\x93NUMPY\x01\x00\xff\xff{".to_vec(), "past the end"),
    ];
    for (bytes, want) in cases {
        let e = decode_as(&bytes, "s16[2]").unwrap_err().0;
        assert!(
            e.contains("not a NumPy .npy array") && e.contains(want),
            "{want}: {e}"
        );
    }
    // A structured dtype is named as Python writes it.
    let rec = image(
        1,
        "{'descr': [('a', '<i2')], 'fortran_order': False, 'shape': (2,), }",
        &two,
    );
    let e = decode_as(&rec, "s16[2]").unwrap_err().0;
    assert!(e.contains("holds dtype [('a', '<i2')]"), "{e}");
    // A bool byte that is neither 0 nor 1.
    let b = image(
        1,
        "{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }",
        &[1, 2],
    );
    let e = decode_as(&b, "pred[2]").unwrap_err().0;
    assert!(e.contains("no bool value"), "{e}");
}

#[test]
fn written_headers_end_on_64_bytes_and_long_ones_take_version_2() {
    for dims in [vec![], vec![3], vec![2, 3], vec![1; 30], vec![7; 30000]] {
        let rank = dims.len();
        let h = header_bytes("<f4", &dims);
        assert_eq!(h.len() % 64, 0, "rank {rank}");
        assert_eq!(*h.last().unwrap(), b'\n');
        let parsed = Header::parse(&h).unwrap();
        assert_eq!(parsed.data, h.len());
        assert_eq!(
            parsed.shape,
            dims.iter().map(|&d| d as u64).collect::<Vec<_>>()
        );
        // 30000 dimensions are 90000 characters, past version 1's 65535.
        assert_eq!(h[6], if rank > 5000 { 2 } else { 1 }, "rank {rank}");
    }
}

#[test]
fn results_are_named_out_i_with_nested_tuples_flattened() {
    let l = parse_literal("(f32[] 1, (s32[] 2, s32[] 3))").unwrap();
    let names: Vec<String> = result_arrays(&l, "out")
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert_eq!(names, ["out0", "out1_0", "out1_1"]);
    let l = parse_literal("f32[] 1").unwrap();
    assert_eq!(result_arrays(&l, "out")[0].0, "out0");
}
