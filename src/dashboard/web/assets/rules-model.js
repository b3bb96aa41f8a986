/*
 * The rules editor's pure part (docs/dashboard.md, "Rules editor"): which rule sets the rows can
 * show, what rows still lack before a save, and the route test's answer in words. No DOM: the unit tests load this file as it is
 * (test/dashboard/rules-editor.test.ts); in the page it is window.RulesModel.
 */
(function () {
  'use strict';

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

  /**
   * What a rule set drawn in the rows still lacks before the parser can accept it (a condition
   * added but not filled in, an action without its URL), as field errors under the API's paths.
   * The server checks everything else when the rules are saved.
   */
  function missing(set, maxWeight) {
    var errors = [];
    var need = function (path, message) { errors.push({ path: path, message: message }); };
    (set ? set.rules : []).forEach(function (rule, index) {
      var at = 'rules.rules.' + index;
      Object.keys(rule.if).forEach(function (name) {
        var value = rule.if[name];
        if (Array.isArray(value) && value.length === 0) need(at + '.if.' + name, name === 'os' || name === 'ip_type' || name === 'weekdays' ? 'pick at least one' : 'give at least one value');
        if (name === 'hours' && value.tz.trim() === '') need(at + '.if.hours.tz', 'give a time zone such as Europe/Berlin or UTC');
        if (name === 'params') {
          Object.keys(value).forEach(function (param) {
            if (param === '') need(at + '.if.params', 'give the parameter a name');
            if (value[param].length === 0) need(at + '.if.params.' + param, 'give at least one value (* for any)');
          });
        }
      });
      var then = rule.then;
      ['url', 'store', 'deep_link'].forEach(function (kind) {
        if (then[kind] === '') need(at + '.then.' + kind, kind === 'deep_link' ? 'give the deep link, such as myapp://product/42' : 'give the URL');
      });
      (then.variants || []).forEach(function (variant, at2) {
        if (variant.url === '') need(at + '.then.variants.' + at2 + '.url', 'give the URL');
        if (!(variant.weight >= 1 && variant.weight <= maxWeight && variant.weight % 1 === 0)) need(at + '.then.variants.' + at2 + '.weight', 'must be a whole number from 1 to ' + maxWeight);
      });
    });
    return errors;
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

  var model = { whyNotShown: whyNotShown, missing: missing, describeRoute: describeRoute, sameJson: sameJson, listText: listText, readListText: readListText, fitsText: fitsText, LIST_TEXT: LIST_TEXT, ACTIONS: ACTIONS };

  if (typeof window === 'undefined') module.exports = model;
  else window.RulesModel = model;
})();
