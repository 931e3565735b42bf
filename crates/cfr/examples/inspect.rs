//! Prints a strategy's probabilities along a line of play: `inspect FILE GAME ACTIONS...`
//! (actions as tree indices: 0 fold, 1 check/call, 2 half pot or the limit raise, 3 pot, 4 all-in).

use pitboss_cfr::mccfr::infoset;
use pitboss_cfr::strategy::{decompress, Strategy};
use pitboss_cfr::tree::{Next, Tree, TD_FL, TD_NL, TD_PL};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let betting = match args[1].as_str() {
        "27td-pl" => TD_PL,
        "27td-nl" => TD_NL,
        _ => TD_FL,
    };
    let tree = Tree::new(betting);
    let raw = decompress(&std::fs::read(&args[0]).unwrap()).unwrap();
    let s = Strategy::from_bytes(&raw, tree.nodes.len(), betting.actions()).unwrap();
    let mut n = 0u32;
    for a in &args[2..] {
        let a: usize = a.parse().unwrap();
        match tree.nodes[n as usize].next[a] {
            Next::Node(m) => n = m,
            x => panic!("{x:?}"),
        }
    }
    let node = tree.nodes[n as usize];
    println!(
        "node {n}: player {} round {} contrib {:?} raise_to {:?}",
        node.player, node.round, node.contrib, node.raise_to
    );
    for opp in 0..s.draws as u8 {
        for class in 0..18u8 {
            if let Some(p) = s.at(infoset(n, class, opp, s.draws)) {
                println!("opp {opp} class {class:>2}: {p:?}");
            }
        }
    }
}
