//! Decompression bombs: refused once the bytes actually written cross the limit, whatever the
//! headers declare, quickly, and with nothing left behind.

mod common;

use std::io::Write;
use std::time::Instant;

use common::*;
use pitboss_bundle::Limits;

const MB: usize = 1 << 20;

/// Writes `n` zeros into `w` in 1 MiB pieces (the bombs are never whole in memory uncompressed).
fn zeros(w: &mut impl Write, n: usize) {
    let block = vec![0u8; MB];
    for _ in 0..n / MB {
        w.write_all(&block).unwrap();
    }
}

#[test]
fn a_gzip_bomb_declaring_10_gb_is_refused_at_the_limit() {
    // A tar header declaring a 10 GB file, then 300 MB of zeros: ~300 KB gzipped.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let bomb = file("bot.py", b"");
    gz.write_all(tar_header(&bomb, 10_000_000_000).as_bytes())
        .unwrap();
    zeros(&mut gz, 300 * MB);
    let archive = gz.finish().unwrap();
    assert!(archive.len() < 2 * MB, "{} bytes", archive.len());
    let start = Instant::now();
    let msg = refused(&archive, &Limits::default());
    assert_eq!(
        msg,
        r#"entry "bot.py": the bundle unpacks to more than 268435456 bytes"#
    );
    eprintln!("gzip bomb refused in {:?}", start.elapsed());
}

#[test]
fn a_zip_bomb_is_refused_at_the_limit() {
    // 300 MB of zeros deflated: ~300 KB.
    let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .compression_level(Some(1))
        .large_file(true);
    z.start_file("zeros.bin", options).unwrap();
    zeros(&mut z, 300 * MB);
    let archive = z.finish().unwrap().into_inner();
    assert!(archive.len() < 2 * MB, "{} bytes", archive.len());
    let msg = refused(&archive, &Limits::default());
    assert_eq!(
        msg,
        r#"entry "zeros.bin": the bundle unpacks to more than 268435456 bytes"#
    );
}

#[test]
fn a_zip_entry_lying_about_its_size_is_refused() {
    // Declares 4096 bytes uncompressed and inflates to 8 MiB: the written bytes are counted, and
    // the lie is refused whether the limit or the zip reader's own checks catch it first.
    let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    z.start_file("liar", options).unwrap();
    zeros(&mut z, 8 * MB);
    let mut archive = z.finish().unwrap().into_inner();
    // The uncompressed size (8 MiB = 0x00800000) in the local and central headers -> 4096.
    patch(
        &mut archive,
        &0x0080_0000u32.to_le_bytes(),
        &4096u32.to_le_bytes(),
    );
    let limits = Limits {
        max_unpacked_bytes: 4 * MB as u64,
        ..Limits::default()
    };
    let msg = refused(&archive, &limits);
    assert!(msg.starts_with(r#"entry "liar": "#), "{msg}");
    // Within the limit, the lie still does not pass.
    let msg = refused(&archive, &Limits::default());
    assert!(msg.starts_with(r#"entry "liar": "#), "{msg}");
    eprintln!("{msg}");
}

#[test]
fn many_small_files_add_up() {
    // 40 files of 1 MiB each against a 32 MiB limit: the sum is what counts.
    let data = vec![b'x'; MB];
    let names: Vec<String> = (0..40).map(|i| format!("f{i:02}")).collect();
    let entries: Vec<_> = names.iter().map(|n| file(n, &data)).collect();
    let limits = Limits {
        max_unpacked_bytes: 32 * MB as u64,
        ..Limits::default()
    };
    let msg = refused(&zstd(&tar(&entries)), &limits);
    assert_eq!(
        msg,
        r#"entry "f32": the bundle unpacks to more than 33554432 bytes"#
    );
}

#[test]
fn a_zstd_frame_asking_for_a_huge_window_is_refused() {
    let plain = tar(&[file("bot.py", &vec![1u8; 4096])]);
    let mut enc = zstd::stream::write::Encoder::new(Vec::new(), 3).unwrap();
    enc.window_log(30).unwrap();
    enc.long_distance_matching(true).unwrap();
    enc.write_all(&plain).unwrap();
    let archive = enc.finish().unwrap();
    let msg = refused(&archive, &Limits::default());
    assert!(msg.contains("unreadable"), "{msg}");
    eprintln!("{msg}");
}
