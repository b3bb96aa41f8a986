/*
 * The smart-link rules editor (docs/dashboard.md, "Rules editor"), loaded by the link page only.
 * The JSON view (the form's `rules` textarea) is the one source of truth: the rows are drawn from
 * it and every edit of a row writes it back, so a save sends exactly what the JSON view shows, and
 * nothing when neither view was touched. JSON the rows cannot show leaves the JSON view alone in
 * charge, with the reason. Loaded after rules-model.js (what the rows can show, the route test
 * in words) and rules-rows.js (the conditions and the action of a row).
 */
(function () {
  'use strict';

  var model = window.RulesModel;

  function start(root) {
    var form = root.closest('form');
    var vocabulary = JSON.parse(document.getElementById(root.getAttribute('data-rules-editor') + '-vocabulary').textContent);
    var box = form.querySelector('textarea[name="rules"]');
    var list = root.querySelector('[data-rule-list]');
    var note = root.querySelector('[data-rules-note]');
    var empty = root.querySelector('[data-rules-empty]');
    var fallback = root.querySelector('[data-rules-fallback]');
    var addRule = root.querySelector('[data-add-rule]');
    var announce = root.querySelector('[data-rules-announce]');
    var state = { set: null, shown: true };
    var saved = readSaved();
    var dragFrom = null;
    var lastTaken = null;
    var parts = window.RulesRows(vocabulary, { write: write, changed: changed });
    var el = parts.el;

    function ruleLabel(index) {
      var rule = state.set.rules[index];
      return 'Rule ' + (index + 1) + (rule.name ? ' \u201c' + rule.name + '\u201d' : '');
    }

    /**
     * The JSON view from the rows; the page's own text again when the user's edits undo each
     * other, whatever order the keys took meanwhile, so such a save sends no rules.
     */
    function write() {
      var set = state.set;
      if (set && set.rules.length === 0 && set.fallback === undefined && box.defaultValue === '') set = null;
      box.value = model.sameJson(set, saved) ? box.defaultValue : set === null ? '' : JSON.stringify(set, null, 2);
      markStale();
    }

    /** The rules the page was rendered with, as stored (null: none, or JSON the page could not read). */
    function readSaved() {
      try {
        return box.defaultValue.trim() === '' ? null : JSON.parse(box.defaultValue);
      } catch (ignored) {
        return undefined;
      }
    }

    function markStale() {
      var stale = document.querySelector('[data-route-test-stale]');
      if (stale) stale.hidden = box.value === box.defaultValue;
    }

    function ensureSet() {
      if (!state.set) state.set = { version: 1, rules: [] };
      return state.set;
    }

    /** The rows from the JSON view: the rows disappear, with the reason, while they cannot show it. */
    function read() {
      var text = box.value.trim();
      var set = null;
      var why = null;
      if (text !== '') {
        try {
          set = JSON.parse(text);
        } catch (error) {
          why = 'the JSON is not valid yet (' + error.message + ')';
        }
      }
      if (why === null) why = model.whyNotShown(set, vocabulary);
      state.shown = why === null;
      note.hidden = state.shown;
      note.textContent = state.shown ? '' : 'The visual editor cannot show these rules: ' + why + '. Edit them in the JSON view; the server checks them when you save.';
      if (state.shown) state.set = set;
      render();
      markStale();
    }

    function render(focus) {
      list.textContent = '';
      var shown = state.shown;
      list.hidden = !shown;
      addRule.hidden = !shown;
      fallback.closest('.field').hidden = !shown;
      empty.hidden = !shown || (state.set !== null && state.set.rules.length > 0);
      if (!shown) return;
      var rules = state.set ? state.set.rules : [];
      addRule.disabled = rules.length >= vocabulary.maxRules;
      if (document.activeElement !== fallback) fallback.value = state.set && state.set.fallback ? state.set.fallback.url : '';
      rules.forEach(function (rule, index) {
        list.appendChild(ruleRow(rule, index, rules.length));
      });
      if (focus) {
        var row = list.children[focus.index];
        var target = row && (row.querySelector('[data-key="' + focus.key + '"]') || row.querySelector('[data-key="name"]'));
        if (target) target.focus();
      }
    }

    /** After a change of shape (a rule, condition or variant added, removed or moved): drawn again. */
    function changed(focus) {
      render(focus);
      write();
    }

    function move(from, to, key) {
      var rules = state.set.rules;
      if (to < 0 || to >= rules.length || from === to) return;
      var rule = rules.splice(from, 1)[0];
      rules.splice(to, 0, rule);
      changed(key ? { index: to, key: key } : null);
      announce.textContent = ruleLabel(to) + ' moved to position ' + (to + 1) + ' of ' + rules.length + '.';
    }

    function ruleRow(rule, index, count) {
      var label = 'Rule ' + (index + 1);
      var errorId = root.getAttribute('data-rules-editor') + '-rule-' + index + '-error';
      var name = el('input', { 'data-key': 'name', value: rule.name || '', maxlength: vocabulary.maxNameLength, placeholder: 'optional: named in reports', 'aria-label': label + ': name', 'aria-describedby': errorId });
      name.addEventListener('input', function () {
        if (name.value === '') delete rule.name;
        else rule.name = name.value;
        write();
      });
      var button = function (text, key, aria, disabled, onClick, extraClass) {
        var node = el('button', { type: 'button', class: 'secondary small-button' + (extraClass ? ' ' + extraClass : ''), 'data-key': key, 'aria-label': aria, 'aria-disabled': disabled ? 'true' : null, text: text });
        node.addEventListener('click', function () {
          if (!disabled) onClick();
        });
        return node;
      };
      var handle = el('span', { class: 'rule-handle', title: 'Drag to reorder', 'aria-hidden': 'true', text: '\u2807' });
      handle.addEventListener('pointerdown', function (event) {
        event.preventDefault();
        dragFrom = index;
        row.classList.add('rule-dragged');
      });
      var row = el('li', { class: 'rule-row' + (lastTaken === index ? ' rule-taken' : ''), 'data-rule-index': index }, [
        el('div', { class: 'rule-head' }, [
          handle,
          el('strong', { class: 'rule-number', text: label }),
          name,
          el('span', { class: 'rule-tools' }, [
            button('\u2191', 'up', 'Move ' + label.toLowerCase() + ' up', index === 0, function () { move(index, index - 1, 'up'); }),
            button('\u2193', 'down', 'Move ' + label.toLowerCase() + ' down', index === count - 1, function () { move(index, index + 1, 'down'); }),
            button('Remove', 'remove', 'Remove ' + label.toLowerCase(), false, function () {
              state.set.rules.splice(index, 1);
              changed({ index: Math.min(index, state.set.rules.length - 1), key: 'remove' });
              announce.textContent = label + ' removed.';
              if (state.set.rules.length === 0) addRule.focus();
            }, 'danger'),
          ]),
        ]),
        parts.conditions(rule, index, label),
        parts.action(rule, index, label),
        lastTaken === index ? el('p', { class: 'rule-taken-note small', text: 'The last route test took this rule.' }) : null,
        el('p', { class: 'error', id: errorId, 'data-error-for': 'rules.rules.' + index, hidden: true }),
      ]);
      row.addEventListener('keydown', function (event) {
        if (!event.altKey || (event.key !== 'ArrowUp' && event.key !== 'ArrowDown') || event.target.tagName === 'SELECT') return;
        event.preventDefault();
        move(index, index + (event.key === 'ArrowUp' ? -1 : 1), event.target.getAttribute('data-key'));
      });
      return row;
    }

    // ---- wiring ------------------------------------------------------------------------------

    // Dragging by a row's handle: pointer events, so a mouse, a pen and a finger all work.
    function rowAt(event) {
      var under = document.elementFromPoint(event.clientX, event.clientY);
      var target = under && under.closest('.rule-row');
      return target && list.contains(target) ? target : null;
    }
    document.addEventListener('pointermove', function (event) {
      if (dragFrom === null) return;
      var target = rowAt(event);
      Array.prototype.forEach.call(list.children, function (item) { item.classList.toggle('rule-drop', item === target); });
    });
    document.addEventListener('pointerup', function (event) {
      if (dragFrom === null) return;
      var from = dragFrom;
      var target = rowAt(event);
      dragFrom = null;
      Array.prototype.forEach.call(list.children, function (item) { item.classList.remove('rule-drop', 'rule-dragged'); });
      if (target) move(from, Number(target.getAttribute('data-rule-index')), null);
    });
    document.addEventListener('pointercancel', function () {
      dragFrom = null;
    });

    addRule.addEventListener('click', function () {
      var set = ensureSet();
      if (set.rules.length >= vocabulary.maxRules) return;
      set.rules.push({ if: {}, then: { url: '' } });
      changed({ index: set.rules.length - 1, key: 'name' });
      announce.textContent = 'Rule ' + set.rules.length + ' added.';
    });
    fallback.addEventListener('input', function () {
      var set = ensureSet();
      if (fallback.value === '') delete set.fallback;
      else set.fallback = { url: fallback.value };
      write();
    });
    // A row not filled in yet is named beside it before anything is sent: the rows send only
    // what the parser can accept (this listener runs before app.js's, which listens on the page).
    form.addEventListener('submit', function (event) {
      var slots = list.querySelectorAll('[data-error-for]');
      for (var s = 0; s < slots.length; s++) {
        slots[s].textContent = '';
        slots[s].hidden = true;
      }
      if (!state.shown || box.value === box.defaultValue) return;
      var errors = model.missing(state.set, vocabulary.maxWeight);
      if (errors.length === 0) return;
      event.preventDefault();
      event.stopPropagation();
      errors.forEach(function (error) {
        var row = list.children[Number(error.path.split('.')[2])];
        var slot = row.querySelector('[data-error-for]');
        slot.textContent = (slot.textContent ? slot.textContent + ' ' : '') + error.path.split('.').slice(3).join('.') + ': ' + error.message + '.';
        slot.hidden = false;
      });
      var first = list.children[Number(errors[0].path.split('.')[2])];
      first.querySelector('[data-key="name"]').focus();
    });
    box.addEventListener('input', function () {
      lastTaken = null;
      read();
    });
    read();

    // The route test, in words, and the rule it took marked among the rows.
    var test = document.getElementById('route-test');
    if (!test) return;
    var words = document.getElementById('route-test-result');
    var raw = document.getElementById('route-test-json');
    test.addEventListener('submit', function () {
      words.textContent = '';
      raw.textContent = '';
      var resultBox = words.closest('[data-result-box]');
      if (resultBox) resultBox.hidden = true;
      lastTaken = null;
      if (state.shown) render();
    });
    test.addEventListener('api-success', function (event) {
      var described = model.describeRoute(event.detail, saved || null);
      words.textContent = '';
      words.appendChild(el('p', { class: 'route-decision', text: described.decision }));
      words.appendChild(el('p', { class: 'muted small', text: described.facts }));
      raw.textContent = JSON.stringify(event.detail, null, 2);
      lastTaken = box.value === box.defaultValue ? described.ruleIndex : null;
      if (state.shown) render();
    });
  }

  var roots = document.querySelectorAll('[data-rules-editor]');
  for (var i = 0; i < roots.length; i++) start(roots[i]);
})();
