//! `cargo run --example unpack -- ARCHIVE DEST`: unpacks a bundle with the default limits and
//! prints what was written, or the refusal (for trying archives made by other tools).

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, archive, dest] = args.as_slice() else {
        eprintln!("usage: unpack ARCHIVE DEST");
        std::process::exit(2);
    };
    let bytes = std::fs::read(archive).expect("reading the archive");
    let limits = pitboss_bundle::Limits::default();
    match pitboss_bundle::unpack(&bytes, std::path::Path::new(dest), &limits) {
        Ok(u) => println!("{u:?}"),
        Err(e) => {
            eprintln!("refused: {e}");
            std::process::exit(1);
        }
    }
}
