import { sql } from "drizzle-orm";
import type { AnyDb } from "../../db/types";
import { openSecret } from "../../lib/secret-box";
import type { BusinessLocation, SlotActionsReport } from "../../schemas/business-location";

/** An instant as the ISO string the wire uses, in UTC with milliseconds. */
const iso = (column: string) =>
  `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The business-location record of a winery with all its parts, as ONE statement: every child list
 * is a json aggregate of its table, so the record costs one round trip whatever its size. The
 * winery's id is appended (a parameter).
 */
export const RECORD_SQL = `
select json_build_object(
  'id', w.id, 'name', w.name, 'businessName', w.business_name, 'description', w.description,
  'cf', w.cf, 'pi', w.pi, 'sdi', w.sdi, 'phone', w.phone, 'companyEmail', w.company_email,
  'notificationEmail', w.notification_email, 'notificationEmails', to_json(w.notification_emails),
  'nearbyCities', w.nearby_cities, 'openingHours', w.opening_hours, 'street', w.street,
  'city', w.city, 'province', w.province, 'region', w.region, 'state', w.state,
  'zipcode', w.zipcode, 'lat', w.lat, 'lng', w.lng, 'wineRegionId', w.wine_region_id,
  'acceptProviderAPayments', w.accept_provider_a_payments,
  'acceptProviderBPayments', w.accept_provider_b_payments,
  'acceptProviderCPayments', w.accept_provider_c_payments,
  'acceptPayAtWineryPayments', w.accept_pay_at_winery_payments,
  'activeBillingDetails', w.active_billing_details, 'proEnabled', w.pro_enabled,
  'showWebsite', w.show_website, 'showWidget', w.show_widget,
  'showWidgetFilter', w.show_widget_filter,
  'descriptionTranslations', w.description_translations,
  'metaDescriptionTranslations', w.meta_description_translations,
  'metaTitleTranslations', w.meta_title_translations,
  'openingHoursTranslations', w.opening_hours_translations,
  'createdAt', ${iso("w.created_at")}, 'updatedAt', ${iso("w.updated_at")},
  'channels', coalesce((select json_agg(json_build_object(
      'channelId', c.channel_id, 'createdAt', ${iso("c.created_at")}, 'data', c.data,
      'deletedAt', ${iso("c.deleted_at")}, 'ecommerceUrl', c.ecommerce_url, 'id', c.id,
      'name', c.name, 'pointOfSaleSuiteId', c.point_of_sale_suite_id,
      'updatedAt', ${iso("c.updated_at")}) order by c.channel_id)
    from sales_channels c where c.winery_id = w.id), '[]'),
  'closingPeriods', coalesce((select json_agg(json_build_object(
      'first', p.first, 'id', p.id, 'last', p.last) order by p.first, p.id)
    from winery_closing_periods p where p.winery_id = w.id), '[]'),
  'files', coalesce((select json_agg(json_build_object(
      'contentData', f.content_data, 'id', f.id, 'title', f.title, 'typeFile', f.type_file)
      order by f.id)
    from winery_files f where f.winery_id = w.id), '[]'),
  'integrations', coalesce((select json_agg(json_build_object(
      'authToken', i.auth_token_ciphertext, 'disabled', i.disabled,
      'integrationData', i.integration_data, 'integrationId', i.integration_id,
      'integrationName', i.integration_name, 'integrationOptions', i.integration_options,
      'roleId', i.role_id) order by i.created_at, i.id)
    from winery_integrations i where i.winery_id = w.id), '[]'),
  'parameters', coalesce((select json_agg(json_build_object(
      'creationDate', ${iso("m.creation_date")}, 'deleted', m.deleted,
      'parameterKey', m.parameter_key, 'parameterValue', m.parameter_value,
      'updateDate', ${iso("m.update_date")}) order by m.parameter_key, m.id)
    from winery_parameters m where m.winery_id = w.id), '[]'),
  'photos', coalesce((select json_agg(json_build_object(
      'cover', ph.cover, 'id', ph.id, 'imageData', ph.image_data, 'imageType', ph.image_type,
      'main', ph.main, 'publicId', ph.public_id, 'title', ph.title) order by ph.main desc, ph.id)
    from winery_photos ph where ph.winery_id = w.id), '[]'),
  'services', coalesce((select json_agg(json_build_object(
      'createdAt', ${iso("s.created_at")}, 'id', s.id, 'name', s.name,
      'nameTranslations', s.name_translations, 'tagTypeTranslations', s.tag_type_translations,
      'updatedAt', ${iso("s.updated_at")}) order by s.name, s.id)
    from winery_services s where s.winery_id = w.id), '[]'),
  'wineRegion', (select json_build_object('id', r.id, 'name', r.name, 'regionId', r.region_id)
    from wine_regions r where r.id = w.wine_region_id)
) as record
from wineries w where w.id = `;

type StoredRecord = Omit<BusinessLocation, "slotActions">;

/** The record's row, still sealed; `openBusinessLocation` finishes it. */
export async function readBusinessLocationRow(db: AnyDb, wineryId: string) {
  const result = (await db.execute(sql`${sql.raw(RECORD_SQL)}${wineryId}`)) as unknown as {
    rows: { record: StoredRecord }[];
  };
  return result.rows[0];
}

/** Opens the sealed auth tokens (bound to the winery) and adds the slot report. */
export async function openBusinessLocation(
  row: { record: StoredRecord } | undefined,
  integrationsKey: string,
  slotActions: SlotActionsReport,
): Promise<BusinessLocation> {
  if (!row) throw new Error("the key's winery has no business-location record");
  const record = row.record;
  const integrations = await Promise.all(
    record.integrations.map(async (integration) => ({
      ...integration,
      authToken:
        integration.authToken === null
          ? null
          : await openSecret(integrationsKey, integration.authToken, record.id),
    })),
  );
  return { ...record, integrations, slotActions };
}
