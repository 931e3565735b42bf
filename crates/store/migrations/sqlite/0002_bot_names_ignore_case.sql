-- Bot names are one name whatever their case (`Victim` is `victim`): the store looks them up
-- ignoring case, and this index makes two uploads of such names at the same instant unable to
-- create two bots.
CREATE UNIQUE INDEX bots_name_ignoring_case ON bots (lower(name));
