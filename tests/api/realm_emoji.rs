//! Custom emoji as clients use them: `GET /realm/emoji`, `POST`/`DELETE /realm/emoji/{name}`,
//! the pictures under `/user_avatars/`, `realm_emoji` events and register data, reactions with
//! `reaction_type=realm_emoji`, `:name:` in messages and status emoji; and every bad input
//! (names, permissions, files, images) answered with upstream's error and changing nothing.

use hyper::Method;
use serde_json::{Value, json};

use crate::backup_restore::{backup, restore, write_config};
use crate::support::{Org, Reply, TestUser, basic, body, org, org_with, raw, wait_events};
use crate::uploads::{gif, png, png_header};

const BOUNDARY: &str = "outpost-emoji-boundary";

/// A `multipart/form-data` body with these files `(field, filename, bytes)`.
fn multipart(files: &[(&str, &str, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    for (field, filename, data) in files {
        out.extend_from_slice(
            format!(
                "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{field}\"; \
                 filename=\"{filename}\"\r\nContent-Type: image/png\r\n\r\n"
            )
            .as_bytes(),
        );
        out.extend_from_slice(data);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
    out
}

async fn post_emoji_body(o: &Org, who: &TestUser, name: &str, content: Vec<u8>) -> Reply {
    let req = raw(Method::POST, &format!("/api/v1/realm/emoji/{name}"))
        .header(
            "content-type",
            format!("multipart/form-data; boundary={BOUNDARY}"),
        )
        .header("authorization", basic(&who.email, &who.api_key));
    o.srv.send(req.body(body(content)).unwrap()).await
}

async fn add(o: &Org, who: &TestUser, name: &str, image: &[u8]) -> Reply {
    post_emoji_body(o, who, name, multipart(&[("f1", "img.png", image)])).await
}

async fn list(o: &Org, who: &TestUser) -> Value {
    let r = o.srv.get("/api/v1/realm/emoji", who, &[]).await;
    r.assert_success("GET /realm/emoji")["emoji"].clone()
}

/// The listed emoji called `name` (the newest, if several).
async fn named(o: &Org, name: &str) -> Value {
    let all = list(o, &o.alice).await;
    all.as_object()
        .unwrap()
        .values()
        .filter(|e| e["name"] == name)
        .max_by_key(|e| e["id"].as_str().unwrap().parse::<i64>().unwrap())
        .cloned()
        .unwrap_or(Value::Null)
}

async fn get_path(o: &Org, path: &str) -> Reply {
    o.srv
        .send(raw(Method::GET, path).body(body("")).unwrap())
        .await
}

#[tokio::test]
async fn members_add_emoji_that_everyone_sees() {
    let o = org().await;
    let (q, _) = o
        .register(&o.bob, &[("event_types", r#"["realm_emoji"]"#)])
        .await;
    add(&o, &o.alice, "green_tick", &png(100, 50))
        .await
        .assert_success("POST /realm/emoji/{emoji_name}");
    let all = list(&o, &o.bob).await;
    let all = all.as_object().unwrap();
    assert_eq!(all.len(), 1);
    let (id, e) = all.iter().next().unwrap();
    assert_eq!(e["id"], *id);
    assert_eq!(e["name"], "green_tick");
    assert_eq!(e["deactivated"], false);
    assert_eq!(e["author_id"], o.alice.id);
    assert_eq!(e["still_url"], Value::Null);
    let src = e["source_url"].as_str().unwrap();
    assert!(src.starts_with("/user_avatars/1/emoji/images/") && src.ends_with(".png"));
    // The picture is served without credentials, scaled to 64x64.
    let r = get_path(&o, src).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.headers["content-type"], "image/png");
    let img = image::load_from_memory(&r.raw).unwrap();
    assert_eq!((img.width(), img.height()), (64, 64));
    // Everyone is told, with the whole set.
    let evs = wait_events(&o, &o.bob, &q, 1).await;
    assert_eq!(evs[0]["type"], "realm_emoji");
    assert_eq!(evs[0]["op"], "update");
    assert_eq!(evs[0]["realm_emoji"][id.as_str()], *e);
    // Register has it too.
    let (_, state) = o
        .register(&o.bob, &[("fetch_event_types", r#"["realm_emoji"]"#)])
        .await;
    assert_eq!(state["realm_emoji"][id.as_str()], *e);
    // So does what the mobile app parses.
    let (_, all_state) = o.register(&o.bob, crate::mobile_app::APP_REGISTER).await;
    crate::mobile_app::assert_app_parses_snapshot(&all_state);
    assert_eq!(all_state["realm_emoji"][id.as_str()], *e);
}

#[tokio::test]
async fn animated_emoji_have_a_still() {
    let o = org().await;
    add(&o, &o.alice, "party", &gif(4))
        .await
        .assert_success("POST /realm/emoji/{emoji_name}");
    let e = named(&o, "party").await;
    let src = e["source_url"].as_str().unwrap();
    let still = e["still_url"].as_str().unwrap();
    assert!(src.ends_with(".gif"));
    assert!(still.starts_with("/user_avatars/1/emoji/images/still/"));
    let r = get_path(&o, src).await;
    assert_eq!(r.headers["content-type"], "image/gif");
    assert_eq!(
        image::guess_format(&r.raw).unwrap(),
        image::ImageFormat::Gif
    );
    let r = get_path(&o, still).await;
    let img = image::load_from_memory(&r.raw).unwrap();
    assert_eq!((img.width(), img.height()), (64, 64));
}

#[tokio::test]
async fn names_follow_upstream_rules() {
    let o = org().await;
    let img = png(10, 10);
    let must_contain = "Emoji names must contain only lowercase English letters, digits, \
                        spaces, dashes, and underscores.";
    for (name, msg) in [
        ("my_em*oji", must_contain),
        ("my_EMoji", must_contain),
        ("my/emoji/with/slash", must_contain),
        ("na%C3%AFve", must_contain),
        (
            "my_emoji_",
            "Emoji names must end with either a letter or digit.",
        ),
        ("%20", "Emoji name is missing"),
    ] {
        let r = add(&o, &o.admin, name, &img).await;
        assert_eq!(r.assert_error(400, "BAD_REQUEST")["msg"], msg, "{name}");
    }
    // Spaces are underscores.
    add(&o, &o.admin, "my%20emoji", &img)
        .await
        .assert_success("POST /realm/emoji/{emoji_name}");
    assert_eq!(named(&o, "my_emoji").await["name"], "my_emoji");
    assert_eq!(list(&o, &o.alice).await.as_object().unwrap().len(), 1);
}

#[tokio::test]
async fn who_may_add_follows_the_organization_setting() {
    let o = org().await;
    let img = png(10, 10);
    let r = add(&o, &o.guest, "ghost", &img).await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Not allowed for guest users"
    );
    // Built-in names only for administrators.
    let r = add(&o, &o.alice, "smile", &img).await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Only administrators can override default emoji."
    );
    add(&o, &o.admin, "smile", &img)
        .await
        .assert_success("POST /realm/emoji/{emoji_name}");
    // Administrators only.
    let r = o
        .srv
        .patch(
            "/api/v1/realm",
            &o.owner,
            &[("can_add_custom_emoji_group", r#"{"new": 3}"#)],
        )
        .await;
    crate::support::patched(&r);
    let (_, state) = o
        .register(&o.alice, &[("fetch_event_types", r#"["realm"]"#)])
        .await;
    assert_eq!(state["realm_can_add_custom_emoji_group"], 3);
    let r = add(&o, &o.alice, "mine", &img).await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Insufficient permission"
    );
    add(&o, &o.admin, "mine", &img)
        .await
        .assert_success("POST /realm/emoji/{emoji_name}");
    let r = add(&o, &o.admin, "mine", &img).await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "A custom emoji with this name already exists."
    );
    assert_eq!(list(&o, &o.alice).await.as_object().unwrap().len(), 2);
}

#[tokio::test]
async fn bad_files_and_images_change_nothing() {
    let o = org_with(|c| c.limits.max_emoji_file_size_mib = 1).await;
    let img = png(10, 10);
    let cases: Vec<(Vec<u8>, u16, &str, &str)> = vec![
        (
            multipart(&[("f1", "a.png", &img), ("f2", "b.png", &img)]),
            400,
            "BAD_REQUEST",
            "You must upload exactly one file.",
        ),
        (
            multipart(&[]),
            400,
            "BAD_REQUEST",
            "You must upload exactly one file.",
        ),
        (
            multipart(&[("f1", "big.png", &vec![0u8; 1024 * 1024 + 1])]),
            400,
            "BAD_REQUEST",
            "Uploaded file is larger than the allowed limit of 1 MiB",
        ),
        (
            multipart(&[("f1", "a.png", b"this is not an image")]),
            400,
            "BAD_IMAGE",
            "Could not decode image; did you upload an image file?",
        ),
        (
            multipart(&[("f1", "a.bmp", b"BM\x3e\0\0\0\0\0\0\0\x3e\0\0\0\x28\0\0\0")]),
            400,
            "BAD_IMAGE",
            "Invalid image format",
        ),
        (
            multipart(&[("f1", "bomb.png", &png_header(100_000, 100_000))]),
            400,
            "BAD_IMAGE",
            "Image size exceeds limit.",
        ),
        (
            multipart(&[("f1", "cut.png", &png_header(50, 50))]),
            400,
            "BAD_IMAGE",
            "Image is corrupted or truncated",
        ),
        (
            b"--outpost-emoji-boundary\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a\"\r\n\r\nno end"
                .to_vec(),
            400,
            "BAD_REQUEST",
            "Malformed multipart/form-data body",
        ),
    ];
    for (content, status, code, msg) in cases {
        let r = post_emoji_body(&o, &o.alice, "fine", content).await;
        assert_eq!(r.assert_error(status, code)["msg"], msg);
    }
    // A body larger than the limit allows is cut off unread.
    let r = post_emoji_body(&o, &o.alice, "fine", vec![b'x'; 2 * 1024 * 1024]).await;
    assert_eq!(r.status, 413);
    assert_eq!(list(&o, &o.alice).await, json!({}));
    let emoji_dir = o.srv.state.config.data_dir.join("emoji").join("images");
    assert!(
        std::fs::read_dir(&emoji_dir).map_or(true, |d| d.count() == 0),
        "pictures were left behind"
    );
    // A picture left without a record (a crash before its record was written) is swept once
    // it is old enough not to be an emoji being added.
    std::fs::create_dir_all(&emoji_dir).unwrap();
    let stray = emoji_dir.join("strayfile.png");
    std::fs::write(&stray, b"x").unwrap();
    add(&o, &o.alice, "kept", &png(8, 8))
        .await
        .assert_success("POST /realm/emoji/{emoji_name}");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let swept = outpost::domain::realm_emoji::sweep(&o.srv.state, now)
        .await
        .unwrap();
    assert_eq!(swept, 0);
    let swept = outpost::domain::realm_emoji::sweep(&o.srv.state, now + 7200)
        .await
        .unwrap();
    assert_eq!(swept, 1);
    assert!(!stray.exists());
    let kept = named(&o, "kept").await;
    assert_eq!(
        get_path(&o, kept["source_url"].as_str().unwrap())
            .await
            .status,
        200
    );
    // Without credentials nothing is read.
    let r = o
        .srv
        .send(
            raw(Method::POST, "/api/v1/realm/emoji/fine")
                .body(body(multipart(&[("f1", "a.png", &img)])))
                .unwrap(),
        )
        .await;
    r.assert_error(401, "UNAUTHORIZED");
}

/// A GIF with a `screen` logical screen and frames of these `(left, top, width, height)`, each
/// one colour (the `gif` crate's encoder, which writes frames of any size where it is told).
fn gif_with(screen: (u16, u16), frames: &[(u16, u16, u16, u16)]) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let palette = [0, 0, 0, 255, 0, 0];
        let mut enc = gif::Encoder::new(&mut out, screen.0, screen.1, &palette).unwrap();
        for &(left, top, width, height) in frames {
            let pixels = vec![1u8; usize::from(width) * usize::from(height)];
            let mut f = gif::Frame::from_indexed_pixels(width, height, pixels, None);
            (f.left, f.top) = (left, top);
            enc.write_frame(&f).unwrap();
        }
    }
    out
}

/// Issue 24, item 4: an animated GIF is budgeted by what its frames decode to, not by its
/// logical screen. Frames larger than the screen (which the decoder would decode whole, then
/// crop) and more frames than allowed are refused from the file's block structure before any
/// frame is decoded; frames composed onto a large screen count at the screen's size. Each is
/// answered 400 and adds nothing.
#[tokio::test]
async fn animated_gifs_beyond_the_frame_budget_are_refused() {
    let o = org().await;
    let cases = [
        // A 10x10 screen holding five 2000x2000 frames: 20 million decoded pixels.
        (
            gif_with((10, 10), &[(0, 0, 2000, 2000); 5]),
            "Image frame extends beyond the image.",
        ),
        // One frame starting inside the screen and running off it.
        (
            gif_with((10, 10), &[(0, 0, 10, 10), (5, 5, 10, 10)]),
            "Image frame extends beyond the image.",
        ),
        // More frames than an animated emoji may have, each of one pixel.
        (
            gif_with((1, 1), &[(0, 0, 1, 1); 501]),
            "Image has too many frames.",
        ),
        // Seventeen one-pixel frames, each composed onto a 1000x1000 screen.
        (
            gif_with((1000, 1000), &[(0, 0, 1, 1); 17]),
            "Image size exceeds limit.",
        ),
    ];
    for (gif, msg) in cases {
        let r = add(&o, &o.alice, "party", &gif).await;
        assert_eq!(r.assert_error(400, "BAD_IMAGE")["msg"], msg);
    }
    assert_eq!(list(&o, &o.alice).await, json!({}));
    let emoji_dir = o.srv.state.config.data_dir.join("emoji").join("images");
    assert!(
        std::fs::read_dir(&emoji_dir).map_or(true, |d| d.count() == 0),
        "pictures were left behind"
    );
    // Within the budget the same kinds of file are fine: 500 frames, and frames inside the
    // screen.
    add(
        &o,
        &o.alice,
        "many",
        &gif_with((1, 1), &[(0, 0, 1, 1); 500]),
    )
    .await
    .assert_success("POST /realm/emoji/{emoji_name}");
    add(
        &o,
        &o.alice,
        "inside",
        &gif_with((100, 100), &[(0, 0, 100, 100), (20, 30, 80, 70)]),
    )
    .await
    .assert_success("POST /realm/emoji/{emoji_name}");
}

#[tokio::test]
async fn deactivation_keeps_the_emoji_listed_and_frees_its_name() {
    let o = org().await;
    let img = png(10, 10);
    add(&o, &o.alice, "wave_1", &img)
        .await
        .assert_success("POST /realm/emoji/{emoji_name}");
    let (q, _) = o
        .register(&o.bob, &[("event_types", r#"["realm_emoji"]"#)])
        .await;
    let r = o
        .srv
        .delete("/api/v1/realm/emoji/nothing", &o.alice, &[])
        .await;
    assert_eq!(
        r.assert_error(404, "BAD_REQUEST")["msg"],
        "Emoji 'nothing' does not exist"
    );
    let r = o
        .srv
        .delete("/api/v1/realm/emoji/wave_1", &o.bob, &[])
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Must be an organization administrator or emoji author"
    );
    let before = named(&o, "wave_1").await;
    o.srv
        .delete("/api/v1/realm/emoji/wave_1", &o.alice, &[])
        .await
        .assert_success("DELETE /realm/emoji/{emoji_name}");
    let after = named(&o, "wave_1").await;
    assert_eq!(after["deactivated"], true);
    assert_eq!(after["id"], before["id"]);
    let evs = wait_events(&o, &o.bob, &q, 1).await;
    assert_eq!(
        evs[0]["realm_emoji"][before["id"].as_str().unwrap()]["deactivated"],
        true
    );
    // Deactivated once; its picture stays for old messages.
    let r = o
        .srv
        .delete("/api/v1/realm/emoji/wave_1", &o.alice, &[])
        .await;
    r.assert_error(404, "BAD_REQUEST");
    assert_eq!(
        get_path(&o, before["source_url"].as_str().unwrap())
            .await
            .status,
        200
    );
    // The name can be used again; administrators deactivate anyone's.
    add(&o, &o.bob, "wave_1", &img)
        .await
        .assert_success("POST /realm/emoji/{emoji_name}");
    assert_eq!(list(&o, &o.alice).await.as_object().unwrap().len(), 2);
    o.srv
        .delete("/api/v1/realm/emoji/wave_1", &o.admin, &[])
        .await
        .assert_success("DELETE /realm/emoji/{emoji_name}");
    // Pictures are served only by their stored names.
    for path in [
        "/user_avatars/1/emoji/images/nothing.png",
        "/user_avatars/1/emoji/images/..%2F..%2Foutpost.sqlite3",
        "/user_avatars/2/emoji/images/x.png",
        "/user_avatars/1/emoji/x.png",
    ] {
        assert_eq!(get_path(&o, path).await.status, 404, "{path}");
    }
}

async fn message_html(o: &Org, who: &TestUser, id: i64) -> String {
    let r = o.srv.get(&format!("/api/v1/messages/{id}"), who, &[]).await;
    r.assert_success("GET /messages/{message_id}")["message"]["content"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn messages_reactions_and_statuses_use_custom_emoji() {
    let o = org().await;
    o.channel(&o.alice, "fun", &[&o.alice, &o.bob], &[]).await;
    add(&o, &o.alice, "green_tick", &png(10, 10))
        .await
        .assert_success("POST /realm/emoji/{emoji_name}");
    let e = named(&o, "green_tick").await;
    let (id, src) = (e["id"].as_str().unwrap(), e["source_url"].as_str().unwrap());
    let msg = o
        .send_channel(&o.alice, "fun", "t", "done :green_tick:")
        .await;
    assert_eq!(
        message_html(&o, &o.bob, msg).await,
        format!(
            "<p>done <img alt=\":green_tick:\" class=\"emoji\" src=\"{src}\" \
             title=\"green tick\"></p>"
        )
    );
    // Reacting by name finds the custom emoji.
    let path = format!("/api/v1/messages/{msg}/reactions");
    o.srv
        .post(&path, &o.bob, &[("emoji_name", "green_tick")])
        .await
        .assert_success("POST /messages/{message_id}/reactions");
    let r = o
        .srv
        .get(&format!("/api/v1/messages/{msg}"), &o.bob, &[])
        .await;
    let reactions = r.assert_success("GET /messages/{message_id}")["message"]["reactions"].clone();
    assert_eq!(
        reactions,
        json!([{"emoji_name": "green_tick", "emoji_code": id, "reaction_type": "realm_emoji",
                "user_id": o.bob.id}])
    );
    // Codes and names must agree (on a message without that reaction: a reaction someone
    // already made is a vote and keeps its name).
    let fresh = o.send_channel(&o.alice, "fun", "t", "another").await;
    let fresh_path = format!("/api/v1/messages/{fresh}/reactions");
    for (name, code, msg_text) in [
        ("green_tick", "999", "Invalid custom emoji."),
        ("green_tick", "abc", "Invalid custom emoji."),
        ("red_tick", id, "Invalid custom emoji name."),
    ] {
        let r = o
            .srv
            .post(
                &fresh_path,
                &o.alice,
                &[
                    ("emoji_name", name),
                    ("emoji_code", code),
                    ("reaction_type", "realm_emoji"),
                ],
            )
            .await;
        assert_eq!(r.assert_error(400, "BAD_REQUEST")["msg"], msg_text);
    }
    // A status can show it.
    o.srv
        .post(
            "/api/v1/users/me/status",
            &o.alice,
            &[
                ("emoji_name", "green_tick"),
                ("reaction_type", "realm_emoji"),
            ],
        )
        .await
        .assert_success("POST /users/me/status");
    let r = o
        .srv
        .get(&format!("/api/v1/users/{}/status", o.alice.id), &o.bob, &[])
        .await;
    let status = &r.assert_success("GET /users/{user_id}/status")["status"];
    assert_eq!(status["emoji_code"], id);
    assert_eq!(status["reaction_type"], "realm_emoji");
    // Deactivated: no new reactions with it, and new messages show its name as text.
    o.srv
        .delete("/api/v1/realm/emoji/green_tick", &o.alice, &[])
        .await
        .assert_success("DELETE /realm/emoji/{emoji_name}");
    let other = o
        .send_channel(&o.alice, "fun", "t", "done :green_tick:")
        .await;
    assert_eq!(
        message_html(&o, &o.bob, other).await,
        "<p>done :green_tick:</p>"
    );
    let r = o
        .srv
        .post(
            &format!("/api/v1/messages/{other}/reactions"),
            &o.bob,
            &[
                ("emoji_name", "green_tick"),
                ("emoji_code", id),
                ("reaction_type", "realm_emoji"),
            ],
        )
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "This custom emoji has been deactivated."
    );
    // The old reaction stays and can be removed.
    o.srv
        .delete(
            &path,
            &o.bob,
            &[("emoji_code", id), ("reaction_type", "realm_emoji")],
        )
        .await
        .assert_success("DELETE /messages/{message_id}/reactions");
    assert!(message_html(&o, &o.bob, msg).await.contains(src));
}

#[tokio::test]
async fn backups_hold_the_emoji_pictures() {
    let o = org().await;
    add(&o, &o.alice, "party", &gif(2))
        .await
        .assert_success("POST /realm/emoji/{emoji_name}");
    let e = named(&o, "party").await;
    let cfg = write_config(o.srv.dir.path(), &o.srv.state.config.data_dir);
    let dest = o.srv.dir.path().join("backup.sqlite3");
    backup(&cfg, &dest);
    let dir = o.srv.dir.path().join("backup.sqlite3.emoji");
    let mut pictures = Vec::new();
    for url in [&e["source_url"], &e["still_url"]] {
        let url = url.as_str().unwrap().to_owned();
        let name = url.rsplit('/').next().unwrap();
        let served = get_path(&o, &url).await;
        assert_eq!(std::fs::read(dir.join(name)).unwrap(), served.raw.to_vec());
        pictures.push((url, served.raw.to_vec()));
    }

    // `outpost restore` puts the pictures back, also when the live ones are gone.
    let Org { srv, .. } = o;
    let data_dir = srv.state.config.data_dir.clone();
    let stopped = srv.stop_gracefully().await;
    std::fs::remove_dir_all(data_dir.join("emoji").join("images")).unwrap();
    let (ok, said, err) = restore(&cfg, &dest);
    assert!(ok, "{err}");
    assert!(said.contains("restored 2 custom emoji pictures"), "{said}");
    let srv = stopped.start().await;
    for (url, bytes) in pictures {
        let r = srv
            .send(raw(Method::GET, &url).body(body("")).unwrap())
            .await;
        assert_eq!(r.status, 200, "{url}");
        assert_eq!(r.raw.to_vec(), bytes);
    }
}
