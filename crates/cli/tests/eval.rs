//! `pitboss eval` end to end: the built binary, its stdin/stdout contract, errors and exit codes.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// Runs `pitboss eval ARGS` with `stdin` piped in.
fn eval(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pitboss"))
        .arg("eval")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn pitboss");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write stdin");
    child.wait_with_output().expect("wait for pitboss")
}

fn lines(out: &Output) -> Vec<Value> {
    String::from_utf8(out.stdout.clone())
        .expect("utf-8 output")
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn deuce_to_seven_from_stdin_prints_the_contract_line() {
    let out = eval(&["--rule", "deuce-to-seven"], "2c3d4h5s7c\n");
    assert!(out.status.success(), "{}", stderr(&out));
    let v = lines(&out);
    assert_eq!(v.len(), 1);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with(r#"{"cards":"2c 3d 4h 5s 7c","best":"#),
        "{text}"
    );
    assert_eq!(v[0].as_object().expect("object").len(), 4);
    assert_eq!(v[0]["cards"], "2c 3d 4h 5s 7c");
    assert_eq!(v[0]["best"], "7c 5s 4h 3d 2c");
    assert_eq!(v[0]["class"], "high card");
    assert!(v[0]["value"].is_u64());
}

#[test]
fn values_order_holdings_larger_is_better() {
    let out = eval(
        &["--rule", "high"],
        "2c 3d 4h 5s 7c 9d Jh\nAs Ks Qs Js Ts 2c 2d\n9c 9d 9h 2s 2c\n9c9d9h2s2d\n",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let v = lines(&out);
    let value = |i: usize| v[i]["value"].as_u64().expect("integer value");
    assert_eq!(v[1]["class"], "straight flush");
    assert_eq!(v[1]["best"], "As Ks Qs Js Ts");
    assert!(value(0) < value(2) && value(2) < value(1));
    assert_eq!(value(2), value(3), "suits never break ties");
}

#[test]
fn ace_five_straight_option_switches_the_wheel() {
    let default = lines(&eval(
        &["--rule", "deuce-to-seven"],
        "Ac2d3h4s5c\n2c2d3h4s5c\n",
    ));
    let option = lines(&eval(
        &["--rule", "deuce-to-seven", "--ace-five-straight"],
        "Ac2d3h4s5c\n2c2d3h4s5c\n",
    ));
    assert_eq!(default[0]["class"], "high card");
    assert!(default[0]["value"].as_u64() > default[1]["value"].as_u64());
    assert_eq!(option[0]["class"], "straight");
    assert!(option[0]["value"].as_u64() < option[1]["value"].as_u64());
}

#[test]
fn no_qualifying_low_is_null() {
    let out = eval(
        &["--rule", "ace-to-five-8"],
        "Kc Kd 9h 9s 2c 3d 4h\nAc 2d 3h 4s 5c Kd Kh\n",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let v = lines(&out);
    assert!(v[0]["value"].is_null());
    assert!(v[0]["best"].is_null());
    assert_eq!(v[0]["class"], "no qualifying low");
    assert_eq!(v[1]["best"], "5c 4s 3h 2d Ac");
    assert_eq!(v[1]["class"], "five low");
}

#[test]
fn holdings_as_arguments() {
    let out = eval(&["--rule", "high", "As Ks Qs Js Ts", "2c3d4h5s7c"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(lines(&out).len(), 2);
}

#[test]
fn blank_lines_are_skipped_but_counted() {
    let out = eval(&["--rule", "high"], "\n2c3d4h5s7c\n   \n2c3d4h5s7x\n");
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(lines(&out).len(), 1);
    assert!(stderr(&out).contains("line 4"), "{}", stderr(&out));
}

#[test]
fn bad_input_names_the_line_after_printing_the_good_ones() {
    let cases = [
        (
            "high",
            "2c3d4h5s7c\n2c 3d 4h 5s 1c\n",
            "line 2",
            "unknown card `1c`",
        ),
        (
            "high",
            "2c3d4h5s7c\nAs Ks As Js Ts\n",
            "line 2",
            "duplicate card `As`",
        ),
        ("high", "2c3d4h5s7c\n2c 3d 4h 5s\n", "line 2", "has 4"),
        ("high", "2c3d4h5s7c\n2c3d4h5s7c8c9cTc\n", "line 2", "has 8"),
        (
            "deuce-to-seven",
            "2c3d4h5s7c\n2c3d4h5s7c8c\n",
            "line 2",
            "exactly 5",
        ),
        (
            "ace-to-five-8",
            "Ac2d3h4s5c\nAc2d3h4s\n",
            "line 2",
            "5 to 7",
        ),
    ];
    for (rule, input, place, reason) in cases {
        let out = eval(&["--rule", rule], &format!("{input}2c3d4h5s7c\n"));
        assert_eq!(out.status.code(), Some(3), "{rule} {input:?}");
        assert_eq!(lines(&out).len(), 1, "the valid first line is printed");
        let err = stderr(&out);
        assert!(err.contains(place) && err.contains(reason), "{err}");
        assert!(
            err.contains(input.lines().nth(1).expect("bad line").trim()),
            "{err}"
        );
    }
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(eval(&["--rule", "omaha"], "").status.code(), Some(2));
    let out = eval(&["--rule", "high", "--ace-five-straight"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--ace-five-straight"));
}

#[test]
fn help_has_examples() {
    let out = eval(&["--help"], "");
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("echo 2c3d4h5s7c | pitboss eval --rule deuce-to-seven"));
    assert!(help.contains("no qualifying low"));
}
