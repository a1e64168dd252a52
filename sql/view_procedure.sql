-- view_procedure: a PL/pgSQL stored procedure over ots tables in plain SQL on
-- their views (the student-card purchase flow of docs/reference.md, "A stored
-- procedure"): INSERT ... RETURNING of a generated key, a conditional UPDATE
-- whose failure rolls the order back, a BEGIN ... EXCEPTION block keeping the
-- work before it, COMMIT and ROLLBACK inside a procedure, and the row API
-- seeing what SQL wrote and SQL seeing what the API wrote.
-- (quiet: the extension may already exist, the files share one database)
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
SELECT ots.create_table('cards', 'card_id string',
                        defined_columns => 'balance integer, owner string');
SELECT ots.create_table('purchases', 'card_id string, order_id integer auto_increment',
                        defined_columns => 'amount integer, item string, status string');
RESET client_min_messages;
\set VERBOSITY terse

-- the typed columns follow the key and attributes, in the defined columns' order
SELECT a.attname, format_type(a.atttypid, a.atttypmod) AS type
  FROM pg_attribute a
 WHERE a.attrelid = 'purchases'::regclass AND a.attnum > 0 ORDER BY a.attnum;

-- two cards, written in SQL; the row API reads them
INSERT INTO cards (card_id, owner, balance) VALUES ('card-0001', 'Li Lei', 30), ('card-0002', 'Han Meimei', 5);
SELECT primary_key, attributes FROM ots.get_row('cards', '{"card_id": "card-0001"}');
-- open_card: a card that exists already is a unique_violation (23505) with
-- Tablestore's message, which PL/pgSQL catches by its condition name
CREATE PROCEDURE open_card(card text, card_owner text)
LANGUAGE plpgsql AS $$
DECLARE
  msg text;
  detail text;
BEGIN
  INSERT INTO cards (card_id, owner, balance) VALUES (card, card_owner, 0);
EXCEPTION WHEN unique_violation THEN
  GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL;
  RAISE NOTICE '% %: %', SQLSTATE, msg, detail;
END $$;
CALL open_card('card-0001', 'someone else');
CALL open_card('card-0003', 'Wei Hua');
SELECT card_id, owner, balance FROM cards ORDER BY card_id;

-- purchase: records the order and debits the card, or neither
CREATE PROCEDURE purchase(card text, item text, amount bigint, INOUT order_no bigint DEFAULT NULL)
LANGUAGE plpgsql AS $$
BEGIN
  -- the order; its AUTO_INCREMENT key is generated, RETURNING shows it
  INSERT INTO purchases (card_id, item, amount, status)
       VALUES (card, item, amount, 'paid')
    RETURNING order_id INTO order_no;
  -- the debit, only while the balance covers it (the row is locked, so two
  -- purchases on one card take turns and neither debit is lost)
  UPDATE cards SET balance = balance - amount
   WHERE card_id = card AND balance >= amount;
  IF NOT FOUND THEN
    -- the error undoes the order too
    RAISE EXCEPTION 'card % cannot pay % for %', card, amount, item
      USING HINT = 'Top up the card first.';
  END IF;
END $$;

CALL purchase('card-0001', 'lunch', 12);
CALL purchase('card-0001', 'coffee', 4);
-- too expensive, or an unknown card: the CALL fails and leaves no order
-- behind (the order numbers they drew, 3 and 4, stay used, as a serial's would)
CALL purchase('card-0002', 'textbook', 48);
CALL purchase('card-0009', 'lunch', 12);
SELECT card_id, balance FROM cards ORDER BY card_id;
SELECT card_id, order_id, item, amount, status FROM purchases ORDER BY card_id, order_id;

-- the row API sees the orders SQL wrote ...
SELECT primary_key, attributes
  FROM ots.get_range_rows('purchases', '{"card_id": "card-0001", "order_id": {"$inf": "min"}}',
                          '{"card_id": "card-0001", "order_id": {"$inf": "max"}}');
-- ... and SQL sees what the API writes: a top-up by increment
SELECT attributes AS after_top_up
  FROM ots.update_row('cards', '{"card_id": "card-0002"}', increment => '{"balance": 50}',
                      return_type => 'RT_AFTER_MODIFY');
CALL purchase('card-0002', 'textbook', 48);
SELECT card_id, balance, attributes FROM cards ORDER BY card_id;

-- a basket: each item bought in a BEGIN ... EXCEPTION block (a subtransaction);
-- an item the card cannot pay is recorded as declined, and the items bought
-- before it stay bought
CREATE PROCEDURE buy_basket(card text, items text[], amounts bigint[])
LANGUAGE plpgsql AS $$
DECLARE
  i integer;
  order_no bigint;
BEGIN
  FOR i IN 1 .. cardinality(items) LOOP
    BEGIN
      CALL purchase(card, items[i], amounts[i], order_no);
      RAISE NOTICE '% bought as order %', items[i], order_no;
    EXCEPTION WHEN raise_exception THEN
      INSERT INTO purchases (card_id, item, amount, status)
           VALUES (card, items[i], amounts[i], 'declined')
        RETURNING order_id INTO order_no;
      RAISE NOTICE '% declined (%), recorded as order %', items[i], SQLERRM, order_no;
    END;
  END LOOP;
END $$;

CALL buy_basket('card-0001', '{pen,notebook,umbrella}', '{3,5,20}');
SELECT card_id, balance FROM cards WHERE card_id = 'card-0001';
SELECT order_id, item, amount, status FROM purchases WHERE card_id = 'card-0001' ORDER BY order_id;

-- settle: one transaction per card (COMMIT inside the procedure); a card
-- that spent more than the limit is left for review (ROLLBACK undoes its
-- UPDATE), and a card settled before it stays settled
CREATE PROCEDURE settle(spending_limit bigint)
LANGUAGE plpgsql AS $$
DECLARE
  c record;
  spent bigint;
BEGIN
  FOR c IN SELECT card_id FROM cards ORDER BY card_id LOOP
    UPDATE purchases SET status = 'settled' WHERE card_id = c.card_id AND status = 'paid';
    SELECT coalesce(sum(amount), 0) INTO spent
      FROM purchases WHERE card_id = c.card_id AND status = 'settled';
    IF spent > spending_limit THEN
      ROLLBACK;
      RAISE NOTICE '%: % spent, left for review', c.card_id, spent;
    ELSE
      COMMIT;
      RAISE NOTICE '%: % spent, settled', c.card_id, spent;
    END IF;
  END LOOP;
END $$;

CALL settle(40);
SELECT card_id, order_id, item, status FROM purchases ORDER BY card_id, order_id;
SELECT (ots.get_row('purchases', '{"card_id": "card-0001", "order_id": 1}')).attributes ->> 'status' AS order_1,
       (ots.get_row('purchases', '{"card_id": "card-0002", "order_id": 5}')).attributes ->> 'status' AS order_5;

-- refund: UPDATE ... RETURNING reads the row as it now is; an order
-- refunded once cannot be refunded again, and that failure changes nothing
CREATE PROCEDURE refund(card text, order_no bigint)
LANGUAGE plpgsql AS $$
DECLARE
  paid bigint;
BEGIN
  UPDATE purchases SET status = 'refunded'
   WHERE card_id = card AND order_id = order_no AND status IN ('paid', 'settled')
  RETURNING amount INTO paid;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'order %/% cannot be refunded', card, order_no;
  END IF;
  UPDATE cards SET balance = balance + paid WHERE card_id = card;
END $$;

CALL refund('card-0002', 5);
CALL refund('card-0002', 5);
SELECT card_id, balance FROM cards WHERE card_id = 'card-0002';
SELECT order_id, item, status FROM purchases WHERE card_id = 'card-0002' ORDER BY order_id;

-- in one transaction: a failed statement changes nothing, a savepoint
-- keeps the work before it, ROLLBACK undoes the SQL and API writes alike
BEGIN;
UPDATE cards SET balance = balance + 1 WHERE card_id = 'card-0001';
SAVEPOINT before_cards;
-- two rows, the second an existing card: neither stays
INSERT INTO cards (card_id, owner, balance) VALUES ('card-0004', 'Zhang Wei', 10), ('card-0002', 'again', 0);
ROLLBACK TO SAVEPOINT before_cards;
SELECT card_id, balance FROM cards ORDER BY card_id;
COMMIT;
SELECT card_id, balance FROM cards ORDER BY card_id;
BEGIN;
DELETE FROM purchases WHERE card_id = 'card-0001';
SELECT consumed FROM ots.put_row('cards', '{"card_id": "card-0001"}', '{"owner": "gone"}');
SELECT count(*) AS orders_in_transaction FROM purchases WHERE card_id = 'card-0001';
ROLLBACK;
SELECT count(*) AS orders_after_rollback FROM purchases WHERE card_id = 'card-0001';
SELECT attributes FROM ots.get_row('cards', '{"card_id": "card-0001"}');

DROP PROCEDURE refund(text, bigint);
DROP PROCEDURE settle(bigint);
DROP PROCEDURE buy_basket(text, text[], bigint[]);
DROP PROCEDURE purchase(text, text, bigint, bigint);
DROP PROCEDURE open_card(text, text);
SET client_min_messages = warning;
SELECT ots.delete_table('purchases');
SELECT ots.delete_table('cards');
RESET client_min_messages;
