#[path = "../tests/common/play.rs"]
mod play;
fn main() {
    let a: Vec<u64> = std::env::args().skip(1).map(|x| x.parse().unwrap()).collect();
    let p = play::play(a[0], a[1], a[2] as usize);
    println!("{:?} button {}", p.setup.stacks, p.setup.button);
    for e in p.hand.events() { if !matches!(e, pitboss_rules::Event::Deal{..}) { println!("{e:?}"); } }
}
