//! Leaderboards in every structure (issue #27): `tournament --history` keeps the first hands of
//! each pairing and report.html links them (merged shards too); the report shows each bot's
//! pairings from its own side, the bots' play statistics with every column explained, and a
//! chart legend that hides nothing and says what the chart shows. Each test failed on the main
//! branch before the change.

use std::path::Path;
use std::process::Command;

fn pitboss() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pitboss"))
}

#[path = "common/tmp.rs"]
mod tmp;
use tmp::Tmp;

fn ok(c: &mut Command) -> String {
    let o = c.output().unwrap();
    assert!(
        o.status.success(),
        "{:?}: {}{}",
        c,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A heads-up tournament of `bots` (in this order) over 27td-fl into `out`.
fn tournament(bots: &[&str], out: &Path, extra: &[&str]) -> String {
    let mut c = pitboss();
    c.args(["tournament", "--game", "27td-fl"]);
    for b in bots {
        c.args(["--bot", b]);
    }
    c.args([
        "--deals",
        "400",
        "--batch",
        "200",
        "--seed",
        "11",
        "--threads",
        "2",
    ])
    .args(["--bootstrap", "20"])
    .args(extra)
    .arg("--out")
    .arg(out);
    ok(&mut c)
}

/// Every `href="..."` of a page that is not an anchor on the page itself.
fn file_links(html: &str) -> Vec<String> {
    html.split("href=\"")
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .filter(|s| !s.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// The hands a .phhs file holds (`[N]` headers).
fn hands_in(file: &Path) -> usize {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with('['))
        .count()
}

#[test]
fn tournament_history_keeps_each_pairings_first_hands_and_the_report_links_them() {
    let t = Tmp::absent("history");
    let out = t.0.join("t");
    let said = tournament(
        &["call", "random", "lowball"],
        &out,
        &["--history", "--history-hands", "30"],
    );
    assert!(
        said.contains("kept the first 30 hands of each pairing"),
        "{said}"
    );
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    let links = file_links(&html);
    let files: std::collections::BTreeSet<&String> = links.iter().collect();
    // Three pairings, each linked from its crosstable cells and from both bots' own views.
    assert_eq!(files.len(), 3, "{links:?}");
    for l in &files {
        let f = out.join(l);
        assert!(f.is_file(), "report.html links {l}, which is not there");
        assert_eq!(hands_in(&f), 30, "{l}");
        let show = ok(pitboss()
            .args(["phh", "show"])
            .arg(&f)
            .args(["--hand", "30"]));
        assert!(!show.is_empty());
        ok(pitboss().args(["phh", "verify"]).arg(&f));
    }
    assert!(
        html.contains("pitboss phh show hands/27td-fl~call~random.phhs --hand 1"),
        "the command to read the hands"
    );
    // Without --history nothing is kept and nothing is linked.
    let plain = t.0.join("plain");
    tournament(&["call", "random", "lowball"], &plain, &[]);
    assert!(!plain.join("hands").exists());
    let html = std::fs::read_to_string(plain.join("report.html")).unwrap();
    assert!(file_links(&html).is_empty(), "{:?}", file_links(&html));
}

#[test]
fn merged_shards_keep_and_link_the_hands_of_every_shard() {
    let t = Tmp::absent("shards");
    let single = t.0.join("single");
    tournament(&["call", "random", "lowball"], &single, &["--history"]);
    for i in 0..2 {
        tournament(
            &["call", "random", "lowball"],
            &t.0.join(format!("shard-{i}")),
            &["--history", "--shard", &format!("{i}/2")],
        );
    }
    let merged = t.0.join("merged");
    ok(pitboss()
        .arg("merge")
        .arg(t.0.join("shard-0"))
        .arg(t.0.join("shard-1"))
        .arg("--out")
        .arg(&merged));
    let a = std::fs::read_to_string(single.join("report.html")).unwrap();
    let b = std::fs::read_to_string(merged.join("report.html")).unwrap();
    assert!(a == b, "the merged report differs from the single run's");
    let links = file_links(&b);
    assert!(!links.is_empty());
    for l in links {
        let (x, y) = (single.join(&l), merged.join(&l));
        assert!(y.is_file(), "merged report.html links {l}, not there");
        assert_eq!(std::fs::read(x).unwrap(), std::fs::read(y).unwrap(), "{l}");
    }
}

/// The section of bot `name` in the bot-centred view: from its heading to the end of its table.
fn own_view<'a>(html: &'a str, name: &str) -> &'a str {
    let start = html
        .match_indices("<h3 id=\"bot-")
        .map(|(i, _)| i)
        .find(|&i| {
            html[i..]
                .split("</h3>")
                .next()
                .unwrap()
                .ends_with(&format!(" {name}"))
        })
        .unwrap_or_else(|| panic!("no section of {name}"));
    let rest = &html[start..];
    &rest[..rest.find("</table>").unwrap()]
}

/// The mbb/hand of the row against `opponent` in a bot's own view.
fn own_mbb(section: &str, opponent: &str) -> f64 {
    let row = section
        .split("<tr>")
        .find(|r| r.contains(&format!("<td class=\"name\">{opponent}</td>")))
        .unwrap_or_else(|| panic!("no row against {opponent}: {section}"));
    let cells: Vec<&str> = row
        .split("<td")
        .skip(1)
        .map(|c| c.split_once('>').unwrap().1.split('<').next().unwrap())
        .collect();
    cells[3].parse().unwrap()
}

#[test]
fn each_bot_reads_its_pairings_with_its_own_sign() {
    let t = Tmp::absent("own-side");
    let out = t.0.join("t");
    // lowball is the second of its pairing, as a submitted bot always is.
    tournament(&["random", "lowball"], &out, &[]);
    let csv = std::fs::read_to_string(out.join("crosstable.csv")).unwrap();
    let lowball_row = csv
        .lines()
        .find(|l| l.starts_with("27td-fl,lowball,random,"))
        .unwrap();
    let want: f64 = lowball_row.split(',').nth(4).unwrap().parse().unwrap();
    assert!(want > 0.0, "lowball beats random: {lowball_row}");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    let mine = own_mbb(own_view(&html, "lowball"), "random");
    let theirs = own_mbb(own_view(&html, "random"), "lowball");
    assert!(
        (mine - want).abs() < 0.06,
        "lowball's own view shows {mine}, its result is {want}"
    );
    assert!((theirs + want).abs() < 0.06, "random's view shows {theirs}");
    assert!(own_view(&html, "lowball").contains("<td>won</td>"));
    assert!(own_view(&html, "random").contains("<td>lost</td>"));
    // leaderboard.md too.
    let md = std::fs::read_to_string(out.join("leaderboard.md")).unwrap();
    let own = &md[md
        .find("## Each bot's pairings, from its own side")
        .unwrap()..];
    let row = own
        .lines()
        .find(|l| l.starts_with("| lowball | 27td-fl | random |"))
        .unwrap_or_else(|| panic!("{own}"));
    assert!(
        row.contains(&format!("| {want:.1} [")) && row.ends_with("| won |"),
        "{row}"
    );
}

#[test]
fn the_report_shows_play_statistics_with_every_column_explained() {
    let t = Tmp::absent("stats");
    let out = t.0.join("t");
    tournament(&["call", "raise", "random"], &out, &[]);
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    let at = html.find("<h2>Play statistics</h2>").expect("the section");
    let part = &html[at..];
    let table = &part[..part.find("</table>").unwrap()];
    let explained = &part[part.find("</table>").unwrap()..];
    let explained = &explained[..explained.find("</p>").unwrap()];
    let heads: Vec<&str> = table
        .split("<th")
        .skip(1)
        .map(|h| h.split_once('>').unwrap().1.split('<').next().unwrap())
        .collect();
    assert!(
        heads.contains(&"VPIP %") && heads.contains(&"aggression"),
        "{heads:?}"
    );
    assert!(heads.contains(&"showdown %"), "{heads:?}");
    for h in heads.iter().filter(|h| **h != "bot") {
        assert!(
            explained.contains(&format!("<b>{h}</b>")),
            "column {h} is not explained: {explained}"
        );
    }
    // What the bots are known to do: `call` never bets or raises, `raise` raises whenever it can.
    let row = |bot: &str| -> Vec<f64> {
        let r = table
            .split("<tr>")
            .find(|r| r.contains(&format!(">{bot}</a>")))
            .unwrap_or_else(|| panic!("no row of {bot}"));
        r.split("<td")
            .skip(2)
            .map(|c| c.split_once('>').unwrap().1.split('<').next().unwrap())
            .map(|c| c.parse().unwrap())
            .collect()
    };
    let (call, raise) = (row("call"), row("raise"));
    assert_eq!(call[2], 0.0, "call's first-round raise %: {call:?}");
    assert_eq!(call[3], 0.0, "call's aggression: {call:?}");
    assert!(raise[3] > 1.0, "raise's aggression: {raise:?}");
    assert!(call[1] > 50.0, "call's VPIP: {call:?}");
}

#[test]
fn the_chart_legend_hides_no_curve_and_says_what_the_chart_shows() {
    let t = Tmp::absent("legend");
    let out = t.0.join("t");
    tournament(&["call", "random", "lowball"], &out, &[]);
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    let svg_start = html.find("<h2>Cumulative winnings</h2>").unwrap();
    let svg = &html[svg_start..html[svg_start..].find("</svg>").unwrap() + svg_start];
    for b in ["call", "random", "lowball"] {
        assert!(
            !svg.contains(&format!(">{b}<")) && !svg.contains(&format!(">\n{b}\n<")),
            "a legend inside the plot names {b}"
        );
    }
    let after = &html[svg_start..];
    let legend = &after[after.find("chartlegend").unwrap()..];
    let legend = &legend[..legend.find("<h2>").unwrap()];
    for b in ["call", "random", "lowball"] {
        assert!(legend.contains(&format!("</i>{b}</span>")), "{legend}");
    }
    assert!(
        legend.contains("against the hands it has played so far (x axis)")
            && legend.contains("over the whole tournament"),
        "{legend}"
    );
    // Intervals keep to one line in narrow columns.
    assert!(html.contains("white-space: nowrap"));
}

#[test]
fn submit_keeps_the_submitted_bots_hands_and_its_report_links_them() {
    let t = Tmp::absent("submit");
    let reg = t.0.join("registry");
    let said = ok(pitboss()
        .args(["submit", "lowball", "--name", "lowball-2", "--registry"])
        .arg(&reg));
    let dir = reg.join("tournament");
    let bots = std::fs::read_to_string(dir.join("leaderboard.csv"))
        .unwrap()
        .lines()
        .count()
        - 1;
    let games = std::fs::read_to_string(dir.join("crosstable.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().to_string())
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    // Its pairings only: one file per opponent and game, none of the reference bots' own.
    let pairings = (bots - 1) * games;
    let files: Vec<String> = std::fs::read_dir(dir.join("hands"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(files.len(), pairings, "{files:?}");
    assert!(files.iter().all(|f| f.contains("~lowball-2")), "{files:?}");
    assert!(
        said.contains(&format!(
            "{pairings} pairings of lowball-2 keep their first 500 hands"
        )),
        "{said}"
    );
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    let mine = own_view(&html, "lowball-2");
    let linked: std::collections::BTreeSet<String> = file_links(mine).into_iter().collect();
    assert_eq!(linked.len(), pairings, "{mine}");
    for l in linked {
        assert!(dir.join(&l).is_file(), "{l}");
    }
}
