/*
 * The smart-link rules editor (docs/dashboard.md, "Rules editor"), loaded by the link page only.
 * The JSON view (the form's `rules` textarea) is the one source of truth: the rows are drawn from
 * it and every edit of a row writes it back, so a save sends exactly what the JSON view shows, and
 * nothing when neither view was touched. JSON the rows cannot show leaves the JSON view alone in
 * charge, with the reason. The pure part (`model`) is also loaded by the unit tests.
 */
(function () {
  'use strict';

  var model = (function () {
    var LIST_TEXT = ['country', 'region', 'city', 'language'];
    var LIST_CHOICE = ['os', 'ip_type', 'weekdays'];
    var ACTIONS = ['url', 'store', 'deep_link', 'variants', 'block'];

    function isObject(value) {
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    }

    function quote(text) {
      return '\u201c' + (text.length > 40 ? text.slice(0, 40) + '\u2026' : text) + '\u201d';
    }

    /** A value a comma-separated text box can hold and give back unchanged. */
    function fitsText(value) {
      return typeof value === 'string' && value !== '' && value.indexOf(',') < 0 && value.trim() === value;
    }

    function listText(values) {
      return values.join(', ');
    }

    function readListText(text) {
      return text.split(',').map(function (part) { return part.trim(); }).filter(function (part) { return part !== ''; });
    }

    function onlyKeys(object, allowed) {
      var keys = Object.keys(object);
      for (var i = 0; i < keys.length; i++) if (allowed.indexOf(keys[i]) < 0) return keys[i];
      return null;
    }

    function isHour(value) {
      return typeof value === 'number' && value % 1 === 0 && value >= 0 && value <= 23;
    }

    function whyNotCondition(name, value, vocabulary) {
      if (LIST_TEXT.indexOf(name) >= 0 || LIST_CHOICE.indexOf(name) >= 0) {
        if (!Array.isArray(value)) return name + ' is not a list (the stored form is always one)';
        var choices = { os: vocabulary.os, ip_type: vocabulary.ipTypes, weekdays: vocabulary.weekdays }[name];
        for (var i = 0; i < value.length; i++) {
          var entry = value[i];
          if (choices) {
            if (choices.indexOf(entry) < 0) return name + ' ' + quote(String(entry)) + ' is not one of ' + choices.join(', ');
            if (value.indexOf(entry) !== i) return name + ' lists ' + quote(entry) + ' twice';
          } else if (!fitsText(entry)) {
            return name + ' value ' + quote(String(entry)) + ' is empty, has a comma or blanks at an end';
          }
        }
        return null;
      }
      if (name === 'in_app') return typeof value === 'boolean' ? null : 'in_app is not true or false';
      if (name === 'hours') {
        if (!isObject(value) || onlyKeys(value, ['from', 'to', 'tz']) !== null) return 'hours is not {from, to, tz}';
        if (!isHour(value.from) || !isHour(value.to) || typeof value.tz !== 'string') return 'hours is not {from, to, tz} with hours 0 to 23';
        return null;
      }
      if (name === 'params') {
        if (!isObject(value)) return 'params is not an object';
        var names = Object.keys(value);
        for (var n = 0; n < names.length; n++) {
          var values = value[names[n]];
          if (!Array.isArray(values)) return 'parameter ' + quote(names[n]) + ' has no list of values';
          for (var v = 0; v < values.length; v++) {
            if (!fitsText(values[v])) return 'parameter ' + quote(names[n]) + ' has the value ' + quote(String(values[v])) + ', which is empty, has a comma or blanks at an end';
          }
        }
        return null;
      }
      return 'unknown condition ' + quote(name);
    }

    function whyNotAction(then, vocabulary) {
      if (!isObject(then)) return 'its action is not an object';
      var named = ACTIONS.filter(function (action) { return Object.prototype.hasOwnProperty.call(then, action); });
      if (named.length !== 1) return 'it does not name exactly one action';
      var kind = named[0];
      var extra = onlyKeys(then, kind === 'deep_link' ? ['deep_link', 'fallback'] : [kind]);
      if (extra !== null) return 'its action has the unknown field ' + quote(extra);
      if (kind === 'block') return vocabulary.blockStatuses.indexOf(then.block) >= 0 ? null : 'block is not one of ' + vocabulary.blockStatuses.join(', ');
      if (kind === 'variants') {
        if (!Array.isArray(then.variants) || then.variants.length < 1 || then.variants.length > vocabulary.maxVariants) return 'variants is not a list of 1 to ' + vocabulary.maxVariants;
        for (var i = 0; i < then.variants.length; i++) {
          var variant = then.variants[i];
          if (!isObject(variant) || onlyKeys(variant, ['url', 'weight']) !== null || typeof variant.url !== 'string') return 'variant ' + (i + 1) + ' is not {url, weight}';
          if (typeof variant.weight !== 'number' || variant.weight % 1 !== 0 || variant.weight < 1 || variant.weight > vocabulary.maxWeight) return 'variant ' + (i + 1) + ' has a weight that is not a whole number from 1 to ' + vocabulary.maxWeight;
        }
        return null;
      }
      if (typeof then[kind] !== 'string') return kind + ' is not text';
      if (kind === 'deep_link' && then.fallback !== undefined && typeof then.fallback !== 'string') return 'the deep link fallback is not text';
      return null;
    }

    /**
     * Null when the rows can show `set` (null: no rules), else why not. The rows show the stored
     * (normalised) form of every rule set the parser accepts, except text values a comma-separated
     * box cannot give back: empty, with a comma, or with blanks at an end.
     */
    function whyNotShown(set, vocabulary) {
      if (set === null) return null;
      if (Array.isArray(set)) return 'it is a bare list of rules (the shorthand); the stored form is {"version": 1, "rules": [...]}';
      if (!isObject(set)) return 'it is not a rule set object';
      var extra = onlyKeys(set, ['version', 'rules', 'fallback']);
      if (extra !== null) return 'it has the unknown key ' + quote(extra);
      if (set.version !== 1) return 'its version is not 1';
      if (!Array.isArray(set.rules)) return 'its rules are not a list';
      if (set.rules.length > vocabulary.maxRules) return 'it has more than ' + vocabulary.maxRules + ' rules';
      if (set.fallback !== undefined && (!isObject(set.fallback) || onlyKeys(set.fallback, ['url']) !== null || typeof set.fallback.url !== 'string')) return 'its fallback is not {url}';
      for (var i = 0; i < set.rules.length; i++) {
        var rule = set.rules[i];
        var why = null;
        if (!isObject(rule) || onlyKeys(rule, ['name', 'if', 'then']) !== null) why = 'it is not {name, if, then}';
        else if (rule.name !== undefined && typeof rule.name !== 'string') why = 'its name is not text';
        else if (!isObject(rule.if)) why = 'its conditions are not an object';
        else {
          var names = Object.keys(rule.if);
          for (var c = 0; c < names.length && why === null; c++) why = whyNotCondition(names[c], rule.if[names[c]], vocabulary);
          if (why === null) why = whyNotAction(rule.then, vocabulary);
        }
        if (why !== null) return 'rule ' + (i + 1) + ': ' + why;
      }
      return null;
    }

    /** Whether two JSON values are equal, whatever the order of their objects' keys. */
    function sameJson(a, b) {
      if (a === b) return true;
      if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
      var keys = Object.keys(a);
      if (keys.length !== Object.keys(b).length) return false;
      return keys.every(function (key) { return Object.prototype.hasOwnProperty.call(b, key) && sameJson(a[key], b[key]); });
    }

    var STATUS_WORDS = { 403: '403 Forbidden', 404: '404 Not Found', 410: '410 Gone' };
    var PAGE_WORDS = {
      interstitial: 'shown the page that opens the app (an in-app browser cannot be sent there directly)',
      qr: 'shown a QR code to open on a phone (a desktop cannot open an app store or a deep link)',
      preview: "shown the link's preview page (a link-preview bot)",
    };
    var WEEKDAY_WORDS = { mon: 'Monday', tue: 'Tuesday', wed: 'Wednesday', thu: 'Thursday', fri: 'Friday', sat: 'Saturday', sun: 'Sunday' };

    function whereTo(decision, variants) {
      var at = decision.location;
      if (decision.action === 'store') return 'the app store page ' + at;
      if (decision.action === 'deep_link') return 'the app, at ' + at;
      if (decision.action === 'variants') return 'variant ' + (decision.variant_index + 1) + (variants ? ' of ' + variants : '') + ', ' + at;
      if (decision.action === 'fallback') return 'the fallback URL ' + at;
      if (decision.action === 'destination') return "the link's destination " + at;
      return at;
    }

    /** The route test's answer in words: which rule, what the visitor gets, and the facts the rules saw. */
    function describeRoute(answer, set) {
      var decision = answer.decision;
      var rule = decision.rule_index === null ? null : decision.rule_index;
      var ruleWords = rule === null ? 'No rule takes this visit' : 'Rule ' + (rule + 1) + (decision.rule_name ? ' ' + quote(decision.rule_name) : '') + ' takes this visit';
      var stored = set && Array.isArray(set.rules) && rule !== null ? set.rules[rule] : null;
      var variants = stored && stored.then && Array.isArray(stored.then.variants) ? stored.then.variants.length : null;
      var outcome;
      if (decision.action === 'block') outcome = 'the visit is refused with ' + STATUS_WORDS[decision.status];
      else if (decision.status === 302) outcome = 'the visitor is sent to ' + whereTo(decision, variants);
      else if (decision.status === 200) outcome = 'the visitor is ' + (PAGE_WORDS[decision.page] || 'shown a page');
      else if (decision.action === 'none') outcome = 'there is no fallback URL and no destination, so the visit gets ' + STATUS_WORDS[decision.status];
      else if (decision.status === 404) outcome = 'but the link is paused, so the visit gets 404 Not Found';
      else outcome = 'but the link has expired or reached its click cap, so the visit gets ' + STATUS_WORDS[decision.status];
      var context = answer.context;
      var params = Object.keys(context.params || {}).map(function (name) { return name + '=' + context.params[name]; });
      var facts = [
        'country ' + (context.country || 'unknown'),
        context.region ? 'region ' + context.region : null,
        context.city ? 'city ' + context.city : null,
        'OS ' + (context.os || 'unknown'),
        'IP type ' + (context.ip_type || 'unknown'),
        context.in_app ? 'in an in-app browser' : 'not in an in-app browser',
        'language ' + (context.language && context.language.length ? context.language.join(', ') : 'none'),
        String(context.hour).padStart(2, '0') + ':00 on ' + (WEEKDAY_WORDS[context.weekday] || context.weekday) + ' (' + context.timezone + ')',
        params.length ? 'parameters ' + params.join('&') : 'no parameters',
      ].filter(Boolean);
      return { decision: ruleWords + (outcome.indexOf('but ') === 0 ? ', ' : ': ') + outcome + '.', facts: 'The visit as the rules saw it: ' + facts.join(', ') + '.', ruleIndex: rule };
    }

    return { whyNotShown: whyNotShown, describeRoute: describeRoute, sameJson: sameJson, listText: listText, readListText: readListText, fitsText: fitsText, LIST_TEXT: LIST_TEXT, ACTIONS: ACTIONS };
  })();

  if (typeof document === 'undefined') {
    if (typeof module === 'object') module.exports = model;
    return;
  }

  // ---- the page ------------------------------------------------------------------------------

  var CONDITION_LABELS = { country: 'Country', region: 'Region', city: 'City', os: 'OS', ip_type: 'IP type', language: 'Language', in_app: 'In-app browser', params: 'Parameter', hours: 'Hours', weekdays: 'Weekdays' };
  var CONDITION_HINTS = { country: 'US, CA', region: 'Bavaria', city: 'Berlin, Munich', language: 'de, fr' };
  var CHOICE_LABELS = { ios: 'iOS', android: 'Android', desktop: 'Desktop', residential: 'Residential', mobile: 'Mobile', datacenter: 'Datacenter', mon: 'Mon', tue: 'Tue', wed: 'Wed', thu: 'Thu', fri: 'Fri', sat: 'Sat', sun: 'Sun' };
  var ACTION_LABELS = { url: 'Send to a URL', store: 'Send to an app store', deep_link: 'Open the app (deep link)', variants: 'A/B variants', block: 'Refuse the visit' };
  var STATUS_LABELS = { 403: '403 Forbidden', 404: '404 Not Found', 410: '410 Gone' };

  /** An element with attributes (`text` sets its text) and children; never HTML from data. */
  function el(tag, attributes, children) {
    var node = document.createElement(tag);
    Object.keys(attributes || {}).forEach(function (name) {
      var value = attributes[name];
      if (value === null || value === undefined || value === false) return;
      if (name === 'text') node.textContent = value;
      else if (name === 'value') node.value = value;
      else if (name === 'checked') node.checked = value;
      else node.setAttribute(name, value === true ? '' : String(value));
    });
    (children || []).forEach(function (child) {
      if (child) node.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
    });
    return node;
  }

  function start(root) {
    var form = root.closest('form');
    var vocabulary = JSON.parse(document.getElementById(root.getAttribute('data-rules-editor') + '-vocabulary').textContent);
    var box = form.querySelector('textarea[name="rules"]');
    var list = root.querySelector('[data-rule-list]');
    var visual = root.querySelector('[data-rules-visual]');
    var note = root.querySelector('[data-rules-note]');
    var empty = root.querySelector('[data-rules-empty]');
    var fallback = root.querySelector('[data-rules-fallback]');
    var addRule = root.querySelector('[data-add-rule]');
    var announce = root.querySelector('[data-rules-announce]');
    var state = { set: null, shown: true };
    var saved = readSaved();
    var dragFrom = null;
    var lastTaken = null;

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
      visual.classList.toggle('rules-unshown', !state.shown);
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

    function changed(structure, focus) {
      if (structure) render(focus);
      write();
    }

    function move(from, to, key) {
      var rules = state.set.rules;
      if (to < 0 || to >= rules.length || from === to) return;
      var rule = rules.splice(from, 1)[0];
      rules.splice(to, 0, rule);
      changed(true, key ? { index: to, key: key } : null);
      announce.textContent = ruleLabel(to) + ' moved to position ' + (to + 1) + ' of ' + rules.length + '.';
    }

    function ruleRow(rule, index, count) {
      var label = 'Rule ' + (index + 1);
      var name = el('input', { 'data-key': 'name', value: rule.name || '', maxlength: vocabulary.maxNameLength, placeholder: 'optional: named in reports', 'aria-label': label + ': name' });
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
              changed(true, { index: Math.min(index, state.set.rules.length - 1), key: 'remove' });
              announce.textContent = label + ' removed.';
              if (state.set.rules.length === 0) addRule.focus();
            }, 'danger'),
          ]),
        ]),
        conditionsPart(rule, index, label),
        actionPart(rule, index, label),
        lastTaken === index ? el('p', { class: 'rule-taken-note small', text: 'The last route test took this rule.' }) : null,
        el('p', { class: 'error', 'data-error-for': 'rules.rules.' + index, hidden: true }),
      ]);
      row.addEventListener('keydown', function (event) {
        if (!event.altKey || (event.key !== 'ArrowUp' && event.key !== 'ArrowDown') || event.target.tagName === 'SELECT') return;
        event.preventDefault();
        move(index, index + (event.key === 'ArrowUp' ? -1 : 1), event.target.getAttribute('data-key'));
      });
      return row;
    }

    // ---- conditions as chips -----------------------------------------------------------------

    function conditionsPart(rule, index, label) {
      var chips = el('ul', { class: 'chips', 'aria-label': label + ': conditions' });
      Object.keys(rule.if).forEach(function (condition) {
        if (condition === 'params') {
          Object.keys(rule.if.params).forEach(function (param, at) {
            chips.appendChild(paramChip(rule, index, label, param, at));
          });
        } else {
          chips.appendChild(conditionChip(rule, index, label, condition));
        }
      });
      var add = el('select', { 'aria-label': label + ': add a condition', 'data-key': 'add-condition' }, [el('option', { value: '', text: 'Add a condition\u2026' })].concat(
        vocabulary.conditions
          .filter(function (condition) { return condition === 'params' || !(condition in rule.if); })
          .map(function (condition) { return el('option', { value: condition, text: CONDITION_LABELS[condition] }); }),
      ));
      add.addEventListener('change', function () {
        var condition = add.value;
        if (!condition) return;
        if (condition === 'params') {
          var params = rule.if.params || (rule.if.params = {});
          if (!Object.prototype.hasOwnProperty.call(params, '')) setOwn(params, '', ['*']);
        } else {
          rule.if[condition] = condition === 'in_app' ? true : condition === 'hours' ? { from: 9, to: 17, tz: 'UTC' } : [];
        }
        changed(true, { index: index, key: 'condition-' + condition });
      });
      return el('div', { class: 'rule-if' }, [el('span', { class: 'rule-word', text: Object.keys(rule.if).length ? 'If' : 'Every visit' }), chips, add]);
    }

    function removeButton(label, what, onRemove) {
      var node = el('button', { type: 'button', class: 'chip-remove', 'aria-label': label + ': remove the ' + what + ' condition', text: '\u00d7' });
      node.addEventListener('click', onRemove);
      return node;
    }

    function setOwn(object, key, value) {
      Object.defineProperty(object, key, { value: value, enumerable: true, writable: true, configurable: true });
    }

    function conditionChip(rule, index, label, condition) {
      var value = rule.if[condition];
      var name = CONDITION_LABELS[condition];
      var parts = [el('span', { class: 'chip-name', text: name })];
      var key = 'condition-' + condition;
      if (model.LIST_TEXT.indexOf(condition) >= 0) {
        var input = el('input', { 'data-key': key, value: model.listText(value), placeholder: CONDITION_HINTS[condition], 'aria-label': label + ': ' + name.toLowerCase() + ' values, comma-separated' });
        input.addEventListener('input', function () {
          var values = model.readListText(input.value);
          rule.if[condition] = condition === 'country' ? values.map(function (v) { return v.toUpperCase(); }) : condition === 'language' ? values.map(function (v) { return v.toLowerCase(); }) : values;
          write();
        });
        parts.push(input);
      } else if (condition === 'os' || condition === 'ip_type' || condition === 'weekdays') {
        var choices = { os: vocabulary.os, ip_type: vocabulary.ipTypes, weekdays: vocabulary.weekdays }[condition];
        var group = el('span', { class: 'chip-choices', role: 'group', 'aria-label': label + ': ' + name });
        choices.forEach(function (choice, at) {
          var box = el('input', { type: 'checkbox', checked: value.indexOf(choice) >= 0, 'data-key': at === 0 ? key : null });
          box.addEventListener('change', function () {
            var now = rule.if[condition];
            var where = now.indexOf(choice);
            if (box.checked && where < 0) now.push(choice);
            if (!box.checked && where >= 0) now.splice(where, 1);
            write();
          });
          group.appendChild(el('label', { class: 'chip-choice' }, [box, ' ' + CHOICE_LABELS[choice]]));
        });
        parts.push(group);
      } else if (condition === 'in_app') {
        var select = el('select', { 'data-key': key, 'aria-label': label + ': in-app browser' }, [
          el('option', { value: 'true', text: 'yes', selected: value === true }),
          el('option', { value: 'false', text: 'no', selected: value === false }),
        ]);
        select.value = String(value);
        select.addEventListener('change', function () {
          rule.if.in_app = select.value === 'true';
          write();
        });
        parts.push(select);
      } else if (condition === 'hours') {
        var hour = function (which, text) {
          var options = [];
          for (var h = 0; h < 24; h++) options.push(el('option', { value: h, text: String(h).padStart(2, '0') + ':00' }));
          var node = el('select', { 'data-key': which === 'from' ? key : null, 'aria-label': label + ': hours ' + text }, options);
          node.value = String(value[which]);
          node.addEventListener('change', function () {
            value[which] = Number(node.value);
            write();
          });
          return node;
        };
        var zone = el('input', { value: value.tz, class: 'chip-zone', 'aria-label': label + ': hours time zone', placeholder: 'Europe/Berlin' });
        zone.addEventListener('input', function () {
          value.tz = zone.value;
          write();
        });
        parts.push(hour('from', 'from'), ' to ', hour('to', 'to (not included)'), ' in ', zone);
      }
      parts.push(removeButton(label, name.toLowerCase(), function () {
        delete rule.if[condition];
        changed(true, { index: index, key: 'add-condition' });
      }));
      return el('li', { class: 'chip', 'data-condition': condition }, parts);
    }

    /** One chip a query parameter; together they are the rule's `params`, in the chips' order. */
    function paramChip(rule, index, label, param, at) {
      var params = rule.if.params;
      var nameBox = el('input', { 'data-key': at === 0 ? 'condition-params' : null, value: param, class: 'chip-param', placeholder: 'utm_source', 'aria-label': label + ': parameter name' });
      var valuesBox = el('input', { value: model.listText(params[param]), placeholder: 'news, mail (* any value)', 'aria-label': label + ': values of the parameter, comma-separated (* any value)' });
      var current = param;
      nameBox.addEventListener('input', function () {
        var next = nameBox.value;
        if (next !== current && Object.prototype.hasOwnProperty.call(params, next)) {
          nameBox.setAttribute('aria-invalid', 'true');
          return;
        }
        nameBox.removeAttribute('aria-invalid');
        // Renamed in place: the parameters keep their order.
        var entries = Object.keys(params).map(function (key) { return [key === current ? next : key, params[key]]; });
        Object.keys(params).forEach(function (key) { delete params[key]; });
        entries.forEach(function (entry) { setOwn(params, entry[0], entry[1]); });
        current = next;
        write();
      });
      valuesBox.addEventListener('input', function () {
        setOwn(params, current, model.readListText(valuesBox.value));
        write();
      });
      return el('li', { class: 'chip', 'data-condition': 'params' }, [
        el('span', { class: 'chip-name', text: 'Parameter' }),
        nameBox,
        ' is ',
        valuesBox,
        removeButton(label, 'parameter', function () {
          delete params[current];
          if (Object.keys(params).length === 0) delete rule.if.params;
          changed(true, { index: index, key: 'add-condition' });
        }),
      ]);
    }

    // ---- the action --------------------------------------------------------------------------

    function urlInput(label, text, key, value, onInput, placeholder) {
      var input = el('input', { type: 'url', 'data-key': key, value: value || '', placeholder: placeholder || 'https://', 'aria-label': label + ': ' + text });
      input.addEventListener('input', function () {
        onInput(input.value);
        write();
      });
      return input;
    }

    function actionPart(rule, index, label) {
      var kind = model.ACTIONS.filter(function (action) { return action in rule.then; })[0];
      var select = el('select', { 'data-key': 'action', 'aria-label': label + ': then' }, model.ACTIONS.map(function (action) {
        return el('option', { value: action, text: ACTION_LABELS[action] });
      }));
      select.value = kind;
      select.addEventListener('change', function () {
        var before = rule.then.url || rule.then.store || rule.then.deep_link || '';
        var next = select.value;
        rule.then = next === 'url' ? { url: before } : next === 'store' ? { store: before } : next === 'deep_link' ? { deep_link: '' } : next === 'variants' ? { variants: [{ url: before, weight: 50 }, { url: '', weight: 50 }] } : { block: 404 };
        changed(true, { index: index, key: 'action' });
      });
      var then = rule.then;
      var fields = el('div', { class: 'action-fields' });
      if (kind === 'url') fields.appendChild(urlInput(label, 'URL', 'target', then.url, function (v) { then.url = v; }));
      else if (kind === 'store') fields.appendChild(urlInput(label, 'store URL', 'target', then.store, function (v) { then.store = v; }, 'https://apps.apple.com/app/id123'));
      else if (kind === 'deep_link') {
        var deep = el('input', { 'data-key': 'target', value: then.deep_link, placeholder: 'myapp://product/42', 'aria-label': label + ': deep link' });
        deep.addEventListener('input', function () {
          then.deep_link = deep.value;
          write();
        });
        fields.appendChild(deep);
        fields.appendChild(urlInput(label, 'fallback URL without the app', 'deep-fallback', then.fallback, function (v) {
          if (v === '') delete then.fallback;
          else then.fallback = v;
        }, 'without the app: https://'));
      } else if (kind === 'variants') fields.appendChild(variantsPart(then, index, label));
      else {
        var status = el('select', { 'data-key': 'target', 'aria-label': label + ': refuse with' }, vocabulary.blockStatuses.map(function (code) {
          return el('option', { value: code, text: STATUS_LABELS[code] || String(code) });
        }));
        status.value = String(then.block);
        status.addEventListener('change', function () {
          then.block = Number(status.value);
          write();
        });
        fields.appendChild(status);
      }
      return el('div', { class: 'rule-then' }, [el('span', { class: 'rule-word', text: 'Then' }), select, fields]);
    }

    function variantsPart(then, index, label) {
      var variants = then.variants;
      var shares = [];
      // Each variant's share of the visits, kept current in place as the weights are typed.
      var showShares = function () {
        var total = variants.reduce(function (sum, v) { return sum + (Number(v.weight) || 0); }, 0);
        shares.forEach(function (share, at) {
          share.textContent = total > 0 ? Math.round((variants[at].weight / total) * 100) + ' %' : '';
        });
      };
      var rows = variants.map(function (variant, at) {
        var name = label + ', variant ' + (at + 1);
        var share = el('span', { class: 'muted small' });
        shares.push(share);
        var weight = el('input', { type: 'number', min: 1, max: vocabulary.maxWeight, step: 1, class: 'variant-weight', value: variant.weight, 'aria-label': name + ': weight' });
        weight.addEventListener('input', function () {
          variant.weight = weight.value === '' ? 0 : Number(weight.value);
          showShares();
          write();
        });
        var remove = el('button', { type: 'button', class: 'chip-remove', 'aria-label': 'Remove ' + name.toLowerCase(), 'aria-disabled': variants.length === 1 ? 'true' : null, text: '\u00d7' });
        remove.addEventListener('click', function () {
          if (variants.length === 1) return;
          variants.splice(at, 1);
          changed(true, { index: index, key: 'add-variant' });
        });
        return el('li', { class: 'variant' }, [urlInput(name, 'URL', 'variant-' + at, variant.url, function (v) { variant.url = v; }), weight, share, remove]);
      });
      showShares();
      var add = el('button', { type: 'button', class: 'secondary small-button', 'data-key': 'add-variant', 'aria-label': 'Add variant to ' + label.toLowerCase(), text: 'Add variant', 'aria-disabled': variants.length >= vocabulary.maxVariants ? 'true' : null });
      add.addEventListener('click', function () {
        if (variants.length >= vocabulary.maxVariants) return;
        variants.push({ url: '', weight: 50 });
        changed(true, { index: index, key: 'variant-' + (variants.length - 1) });
      });
      return el('div', {}, [el('ol', { class: 'variants' }, rows), add]);
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
      changed(true, { index: set.rules.length - 1, key: 'name' });
      announce.textContent = 'Rule ' + set.rules.length + ' added.';
    });
    fallback.addEventListener('input', function () {
      var set = ensureSet();
      if (fallback.value === '') delete set.fallback;
      else set.fallback = { url: fallback.value };
      write();
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
