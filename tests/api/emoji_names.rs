//! Zulip's emoji names (issue 10, item 2): reactions, Markdown and register's emoji data use
//! Zulip's own table (canonical names, aliases and code points as upstream's server at feature
//! level 382 has them), not GitHub-style shortcodes.

use hyper::Method;
use serde_json::{Value, json};

use crate::support::{Org, body, org, raw};

/// Names and the codes upstream's table gives them: every third name of Zulip's own naming
/// data (`custom_emoji_names.py`), plus the ones clients press most. Checked against upstream's
/// data: `+1`/`thumbs_up` 1f44d, `ok` 1f44c, `point_up` 1f446, `smile` 1f604 (the remap before
/// feature level 382; `slight_smile` is 1f642), `working_on_it` 1f6e0, `thank_you` 1f64f.
const UPSTREAM_NAMES: &str = "\
grinning 1f600
smile 1f604
lol 1f606
tears 1f602
rofl 1f923
blush 1f60a
slight_smile 1f642
wink 1f609
in_love 1f60d
kiss_smiling_eyes 1f619
stuck_out_tongue 1f61b
joking 1f61c
money_face 1f911
arms_open 1f917
sunglasses 1f60e
smirk 1f60f
disappointed 1f61e
worried 1f61f
concerned 1f615
slight_frown 1f641
persevere 1f623
agony 1f616
distraught 1f629
rage 1f621
very_angry 1f621
blank 1f636
expressionless 1f611
anguished 1f627
surprise 1f62e
flushed 1f633
scream 1f631
shock 1f628
exhausted 1f625
drooling 1f924
sleepy 1f62a
thinking 1f914
nervous 1f62c
quiet 1f910
lips_are_sealed 1f910
sneezing 1f927
flu 1f912
fever 1f912
injured 1f915
smiling_face_with_horns 1f608
angry_devil 1f47f
poop 1f4a9
boo 1f47b
skull 1f480
death 2620
poison 2620
space_invader 1f47e
pumpkin 1f383
joy_cat 1f639
smug_cat 1f63c
weary_cat 1f640
pouting_cat 1f63e
praise 1f64c
folded_hands 1f64f
namaste 1f64f
done_deal 1f91d
like 1f44d
fist_bump 1f44a
power 270a
fingers_crossed 1f91e
rock_on 1f918
got_it 1f44c
point_up 1f446
wait_one_second 261d
hand 270b
high_five 1f590
live_long_and_prosper 1f596
hi 1f44b
middle_finger 1f595
nail_polish 1f485
lipstick 1f484
mouth 1f444
nose 1f443
eye 1f441
speaking_head 1f5e3
silhouettes 1f465
boy 1f466
woman 1f469
older_woman 1f475
turban 1f473
construction_worker 1f477
spy 1f575
sneaky 1f575
santa 1f385
bride 1f470
pregnant 1f930
information_desk_person 1f481
nope 1f645
pick_me 1f64b
person_pouting 1f64e
massage 1f486
dancer 1f483
dancers 1f46f
running 1f3c3
man_and_woman_couple 1f46b
two_men_holding_hands 1f46c
clothing 1f45a
jeans 1f456
dress 1f457
high_heels 1f460
boot 1f462
sneaker 1f45f
top_hat 1f3a9
crown 1f451
helmet 26d1
safety_first 26d1
satchel 1f392
handbag 1f45c
spectacles 1f453
umbrella 2602
dormouse 1f42d
fox 1f98a
koala 1f428
calf 1f42e
frog 1f438
hear_no_evil 1f649
chicken 1f414
bird 1f426
hatching 1f423
duck 1f986
bat 1f987
pony 1f434
buzz 1f41d
caterpillar 1f41b
shell 1f41a
spiral_shell 1f41a
web 1f578
tortoise 1f422
lizard 1f98e
crab 1f980
shrimp 1f990
blowfish 1f421
shark 1f988
crocodile 1f40a
water_buffalo 1f403
cow 1f404
camel 1f42b
gorilla 1f98d
oink 1f416
sheep 1f411
woof 1f415
meow 1f408
cock-a-doodle-doo 1f413
dove_of_peace 1f54a
rat 1f400
paws 1f43e
cactus 1f335
tree 1f333
seedling 1f331
plant 1f33f
lucky 1f340
wish_tree 1f38b
wind 1f343
maple_leaf 1f341
ear_of_rice 1f33e
flower 1f337
crushed 1f940
cherry_blossom 1f338
earth_africa 1f30d
new_moon 1f311
moon_face 1f31d
moon 1f319
glowing_star 1f31f
high_voltage 26a1
lit 1f525
boom 1f4a5
collision 1f4a5
sunny 2600
partly_cloudy 26c5
sun_and_rain 1f326
pride 1f308
overcast 2601
drenched 1f327
lightning 1f329
snowstorm 1f328
snowflake 2744
dash 1f4a8
hazy 1f32b
water_drop 1f4a7
green_apple 1f34f
orange 1f34a
lemon 1f34b
grapes 1f347
cherries 1f352
kiwi 1f95d
eggplant 1f346
corn 1f33d
chili_pepper 1f336
sweet_potato 1f360
honey 1f36f
baguette 1f956
cooking 1f373
breakfast 1f95e
poultry 1f357
hotdog 1f32d
doner_kebab 1f959
stuffed_flatbread 1f959
salad 1f957
ramen 1f35c
soup 1f372
sushi 1f363
rice 1f35a
rice_cracker 1f358
shaved_ice 1f367
soft_serve 1f366
birthday 1f382
lollipop 1f36d
popcorn 1f37f
cookie 1f36a
baby_bottle 1f37c
sake 1f376
clink 1f942
small_glass 1f943
champagne 1f37e
eating_utensils 1f374
table_setting 1f37d
football 26bd
american_football 1f3c8
volleyball 1f3d0
pool 1f3b1
table_tennis 1f3d3
goal 1f945
hole_in_one 26f3
fishing 1f3a3
keikogi 1f94b
ice_skate 26f8
snowboarder 1f3c2
weight_lift 1f3cb
wrestling 1f93c
gymnastics 1f938
sports 26f9
surf 1f3c4
rowboat 1f6a3
rowing 1f6a3
cyclist 1f6b4
medal 1f3c5
gold 1f947
silver 1f948
trophy 1f3c6
reminder_ribbon 1f397
circus 1f3aa
drama 1f3ad
palette 1f3a8
microphone 1f3a4
headphones 1f3a7
musical_keyboard 1f3b9
trumpet 1f3ba
dice 1f3b2
darts 1f3af
bowling 1f3b3
car 1f697
recreational_vehicle 1f699
school_bus 1f68c
police_car 1f693
fire_engine 1f692
truck 1f69b
semi_truck 1f69b
kick_scooter 1f6f4
scooter 1f6f5
siren 1f6a8
oncoming_police_car 1f694
oncoming_automobile 1f698
ski_lift 1f6a1
suspension_railway 1f69f
tram 1f68b
monorail 1f69d
bullet_train 1f685
steam_locomotive 1f682
oncoming_tram 1f68a
station 1f689
airplane 2708
airplane_departure 1f6eb
airplane_arrival 1f6ec
seat 1f4ba
sailboat 26f5
passenger_ship 1f6f3
ferry 26f4
work_in_progress 1f6a7
gas_pump 26fd
traffic_light 1f6a6
map 1f5fa
rock_carving 1f5ff
new_york 1f5fd
tower 1f5fc
shiro 1f3ef
roller_coaster 1f3a2
beach_umbrella 26f1
mountain 26f0
volcano 1f30b
tent 26fa
train_tracks 1f6e4
construction 1f3d7
suburb 1f3e1
condemned 1f3da
japan_post 1f3e3
bank 1f3e6
school 1f3eb
classical_building 1f3db
synagogue 1f54d
japan 1f5fe
sunrise 1f305
shooting_star 1f320
fireworks 1f386
city 1f3d9
milky_way 1f30c
foggy 1f301
smartphone 1f4f1
calling 1f4f2
keyboard 2328
computer_mouse 1f5b1
arcade 1f579
gold_record 1f4bd
cd 1f4bf
videocassette 1f4fc
say_cheese 1f4f8
movie_camera 1f3a5
film 1f39e
phone 260e
fax 1f4e0
radio 1f4fb
level_slider 1f39a
timer 23f2
times_up 231b
hourglass 23f3
full_battery 1f50b
bulb 1f4a1
candle 1f56f
oil_drum 1f6e2
easy_come_easy_go 1f4b8
yen_banknotes 1f4b4
money 1f4b0
gem 1f48e
scales 2696
wrench 1f527
handyman 1f528
hammer_and_pick 2692
tools 1f6e0
nut_and_bolt 1f529
settings 2699
chains 26d3
knife 1f52a
dagger 1f5e1
swords 2694
coffin 26b0
funeral_urn 26b1
amphora 1f3fa
future 1f52e
barber 1f488
alembic 2697
microscope 1f52c
pill 1f48a
temperature 1f321
toilet 1f6bd
drinking_water 1f6b0
bath 1f6c0
services 1f6ce
secret 1f5dd
encrypted 1f5dd
door 1f6aa
couch_and_lamp 1f6cb
bedroom 1f6cf
guestrooms 1f6cc
shopping_bags 1f6cd
gift 1f381
celebration 1f388
ribbon 1f380
party_ball 1f38a
lantern 1f3ee
email 2709
mail_sent 1f4e9
e-mail 1f4e7
outbox 1f4e4
tag 1f3f7
mailbox 1f4eb
empty_mailbox 1f4ed
horn 1f4ef
paper 1f4c4
place_holder 1f4d1
upwards_trend 1f4c8
downwards_trend 1f4c9
spiral_notepad 1f5d2
rolodex 1f4c7
ballot_box 1f5f3
organize 1f4c1
sort 1f5c2
headlines 1f4f0
decorative_notebook 1f4d4
red_book 1f4d5
blue_book 1f4d8
book 1f4d6
link 1f517
office_supplies 1f587
carpenter_square 1f4d0
straightedge 1f4cf
pin 1f4cd
pen 1f58a
paintbrush 1f58c
note 1f4dd
find 1f50d
key_signing 1f50f
secure 1f510
commitment 1f510
unlocked 1f513
love_you 2764
green_heart 1f49a
purple_heart 1f49c
broken_heart 1f494
two_hearts 1f495
heart_pulse 1f497
cupid 1f498
gift_heart 1f49d
cross 271d
islam 262a
wheel_of_dharma 2638
judaism 2721
orthodox_cross 2626
aries 2648
cancer 264b
libra 264e
capricorn 2651
id 1f194
radioactive 2622
phone_off 1f4f4
u6709 1f236
japanese_acceptable_button 1f251
u7121 1f21a
japanese_open_for_business_button 1f23a
u6708 1f237
congratulations 3297
japanese_no_vacancy_button 1f235
u5272 1f239
eight_pointed_star 2734
a 1f170
cl 1f191
cross_mark 274c
circle 2b55
no_entry 26d4
prohibited 1f6ab
hundred 1f4af
pow 1f4a2
do_not_litter 1f6af
underage 1f51e
no_smoking 1f6ad
question 2753
double_exclamation 203c
dim 1f505
part_alternation 303d
danger 26a0
drive_with_care 1f6b8
beginner 1f530
all_good 2705
sparkle 2747
www 1f310
kawaii 1f4a0
m 24c2
typhoon 1f300
wc 1f6be
wheelchair 267f
p 1f17f
customs 1f6c3
locked_bag 1f6c5
baby_change_station 1f6bc
put_litter_in_its_place 1f6ae
cell_reception 1f4f6
symbols 1f523
abcd 1f521
capital_letters 1f520
squared_up 1f199
free 1f193
two 0032-20e3
five 0035-20e3
eight 0038-20e3
1234 1f522
asterisk 002a-20e3
play_pause 23ef
next_track 23ed
skip_back 23ee
fast_reverse 23ea
double_down 23ec
upvote 1f53c
downvote 1f53d
right 27a1
west 2b05
down 2b07
north_east 2197
lower_left 2199
north_west 2196
swap 2194
reply 21a9
heading_down 2935
repeat_one 1f502
clockwise 1f503
plus 2795
subtract 2796
multiplication 2716
exchange 1f4b1
wavy_dash 3030
voicemail 27bf
on 1f51b
check_mark 2714
white_circle 26aa
blue_circle 1f535
small_orange_diamond 1f538
large_blue_diamond 1f537
black_small_square 25aa
white_medium_small_square 25fd
black_large_square 2b1b
green_large_square 1f7e9
no_sound 1f507
sound 1f50a
mute_notifications 1f515
loudspeaker 1f4e2
speech_balloon 1f4ac
dream 1f4ad
clubs 2663
joker 1f0cf
time 1f557
surrender 1f3f3
race 1f3c1
triangular_flag 1f6a9
+1 1f44d
thumbs_up 1f44d
ok 1f44c
working_on_it 1f6e0
thank_you 1f64f
";

async fn message(o: &Org) -> (i64, String) {
    o.channel(&o.alice, "emoji", &[&o.alice, &o.bob], &[]).await;
    let id = o
        .send_channel(&o.alice, "emoji", "names", "react here")
        .await;
    (id, format!("/api/v1/messages/{id}/reactions"))
}

async fn reactions(o: &Org, id: i64) -> Value {
    let r = o
        .srv
        .get(&format!("/api/v1/messages/{id}"), &o.bob, &[])
        .await;
    r.assert_success("GET /messages/{message_id}")["message"]["reactions"].clone()
}

#[tokio::test]
async fn several_hundred_zulip_names_react_with_upstream_codes() {
    let o = org().await;
    let (_, path) = message(&o).await;
    let pairs: Vec<(&str, &str)> = UPSTREAM_NAMES
        .lines()
        .map(|l| l.split_once(' ').expect("name code"))
        .collect();
    assert!(pairs.len() > 500, "{} names", pairs.len());
    for (name, code) in pairs {
        // By name alone, as a simple client does: the server looks the code up...
        let r = o.srv.post(&path, &o.bob, &[("emoji_name", name)]).await;
        assert_eq!(r.status, 200, "{name}: {}", r.body);
        // ...and it is upstream's code: removing by that code finds the reaction.
        let r = o.srv.delete(&path, &o.bob, &[("emoji_code", code)]).await;
        assert_eq!(r.status, 200, "{name} is not {code}: {}", r.body);
    }
}

#[tokio::test]
async fn reactions_use_zulip_names_and_refuse_mismatches_as_upstream() {
    let o = org().await;
    let (id, path) = message(&o).await;
    // zulip-terminal's thumbs-up key sends exactly this.
    o.srv
        .post(
            &path,
            &o.bob,
            &[
                ("emoji_name", "thumbs_up"),
                ("emoji_code", "1f44d"),
                ("reaction_type", "unicode_emoji"),
            ],
        )
        .await
        .assert_success("POST /messages/{message_id}/reactions");
    // Another name of the same emoji is a vote: the first name stays.
    o.srv
        .post(
            &path,
            &o.alice,
            &[("emoji_name", "+1"), ("emoji_code", "1f44d")],
        )
        .await
        .assert_success("POST /messages/{message_id}/reactions");
    for name in ["working_on_it", "thank_you", "ok", "point_up", "smile"] {
        o.srv
            .post(&path, &o.bob, &[("emoji_name", name)])
            .await
            .assert_success("POST /messages/{message_id}/reactions");
    }
    let r = |name: &str, code: &str, user: i64| json!({"emoji_name": name, "emoji_code": code, "reaction_type": "unicode_emoji", "user_id": user});
    assert_eq!(
        reactions(&o, id).await,
        json!([
            r("thumbs_up", "1f44d", o.bob.id),
            r("thumbs_up", "1f44d", o.alice.id),
            r("working_on_it", "1f6e0", o.bob.id),
            r("thank_you", "1f64f", o.bob.id),
            r("ok", "1f44c", o.bob.id),
            r("point_up", "1f446", o.bob.id),
            r("smile", "1f604", o.bob.id),
        ])
    );
    // Names and codes must agree in Zulip's table; GitHub's shortcodes are not Zulip's.
    for (form, msg) in [
        (
            vec![("emoji_name", "thumbsup")],
            "Emoji 'thumbsup' does not exist",
        ),
        (
            vec![("emoji_name", "ok"), ("emoji_code", "1f197")],
            "Invalid emoji name.",
        ),
        (
            vec![("emoji_name", "smile"), ("emoji_code", "1f642")],
            "Invalid emoji name.",
        ),
        (
            vec![("emoji_name", "point_up"), ("emoji_code", "261d")],
            "Invalid emoji name.",
        ),
        (
            vec![
                ("emoji_name", "thumbs_up"),
                ("emoji_code", "1f44d-1f3fb"),
                ("reaction_type", "unicode_emoji"),
            ],
            "Invalid emoji code.",
        ),
    ] {
        let r = o.srv.post(&path, &o.owner, &form).await;
        assert_eq!(r.assert_error(400, "BAD_REQUEST")["msg"], msg, "{form:?}");
    }
    // Without a reaction_type, the name decides it (upstream's get_emoji_data).
    o.srv
        .post(&path, &o.owner, &[("emoji_name", "zulip")])
        .await
        .assert_success("POST /messages/{message_id}/reactions");
    let all = reactions(&o, id).await;
    assert_eq!(
        all.as_array().unwrap().last().unwrap(),
        &json!({"emoji_name": "zulip", "emoji_code": "zulip", "reaction_type": "zulip_extra_emoji", "user_id": o.owner.id})
    );
    // Removing by a Zulip name finds the reaction by its code; nothing else changed above.
    o.srv
        .delete(&path, &o.bob, &[("emoji_name", "hammer_and_wrench")])
        .await
        .assert_success("DELETE /messages/{message_id}/reactions");
    assert_eq!(reactions(&o, id).await.as_array().unwrap().len(), 7);
}

#[tokio::test]
async fn markdown_emoji_use_zulip_names_with_upstream_spans() {
    let o = org().await;
    o.channel(&o.alice, "emoji", &[&o.alice], &[]).await;
    let id = o
        .send_channel(
            &o.alice,
            "emoji",
            "md",
            ":thumbs_up: :smile: \u{1f44d} :thumbsup:",
        )
        .await;
    let r = o
        .srv
        .get(&format!("/api/v1/messages/{id}"), &o.alice, &[])
        .await;
    let b = r.assert_success("GET /messages/{message_id}");
    assert_eq!(
        b["message"]["content"],
        "<p><span aria-label=\"thumbs up\" class=\"emoji emoji-1f44d\" role=\"img\" title=\"thumbs up\">:thumbs_up:</span> \
         <span aria-label=\"smile\" class=\"emoji emoji-1f604\" role=\"img\" title=\"smile\">:smile:</span> \
         <span aria-label=\"+1\" class=\"emoji emoji-1f44d\" role=\"img\" title=\"+1\">:+1:</span> \
         :thumbsup:</p>"
    );
}

#[tokio::test]
async fn server_emoji_data_url_serves_code_to_names_unauthenticated_and_cacheable() {
    let o = org().await;
    let r = o
        .srv
        .post(
            "/api/v1/register",
            &o.alice,
            &[("fetch_event_types", "[\"realm\"]")],
        )
        .await;
    let b = r.assert_success("POST /register");
    let url = b["server_emoji_data_url"].as_str().unwrap().to_string();
    let path = url
        .strip_prefix("http://outpost.test")
        .unwrap_or_else(|| panic!("{url} is not on the server"));
    assert_eq!(path, "/static/generated/emoji/emoji_api.json");

    // No credentials, as the mobile app fetches it.
    let r = o
        .srv
        .send(raw(Method::GET, path).body(body("")).unwrap())
        .await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.raw));
    assert_eq!(r.headers["content-type"], "application/json");
    let cache = r.headers["cache-control"].to_str().unwrap();
    assert!(
        cache.contains("public") && cache.contains("max-age="),
        "{cache}"
    );
    let etag = r.headers["etag"].to_str().unwrap().to_string();
    let map = r.body["code_to_names"].as_object().expect("code_to_names");
    assert_eq!(r.body.as_object().unwrap().len(), 1);
    assert!(map.len() > 1800, "{} emoji", map.len());
    assert_eq!(map["1f44d"], json!(["+1", "thumbs_up", "like"]));
    assert_eq!(map["1f44c"], json!(["ok", "got_it"]));
    assert_eq!(map["1f446"], json!(["point_up", "this"]));
    assert_eq!(map["1f604"], json!(["smile"]));
    assert_eq!(map["1f642"], json!(["slight_smile"]));
    assert_eq!(
        map["1f6e0"],
        json!(["working_on_it", "hammer_and_wrench", "tools"])
    );
    assert_eq!(
        map["1f64f"],
        json!(["folded_hands", "welcome", "thank_you", "namaste", "pray"])
    );
    // The same table the server accepts: every name of the file reacts.
    let names: Vec<&str> = map
        .values()
        .flat_map(|v| v.as_array().unwrap().iter().map(|n| n.as_str().unwrap()))
        .collect();
    assert_eq!(
        names.len(),
        names.iter().collect::<std::collections::HashSet<_>>().len()
    );

    // A client holding the table revalidates for free.
    let r = o
        .srv
        .send(
            raw(Method::GET, path)
                .header("if-none-match", &etag)
                .body(body(""))
                .unwrap(),
        )
        .await;
    assert_eq!(r.status, 304);
    assert!(r.raw.is_empty());
    let r = o
        .srv
        .send(raw(Method::POST, path).body(body("")).unwrap())
        .await;
    assert_eq!(r.status, 405);
}
